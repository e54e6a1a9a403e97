package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Footers are read once per file version: a file rewritten in place is read again. */
class ParquetFootersTest {
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType("message m { required int64 id; }");

  @TempDir Path folder;

  @Test
  void shouldReadAFooterOncePerLengthAndModificationTime() throws IOException {
    Path file = folder.resolve("ids.parquet");
    write(file, 10);
    Configuration conf = new Configuration();
    FileStatus first = status(file, conf);

    ParquetFile read = ParquetFooters.read(List.of(first), conf).get(0);
    ParquetFile again = ParquetFooters.read(List.of(status(file, conf)), conf).get(0);

    assertThat(again).as("the same file: the kept footer").isSameAs(read);
    assertThat(read.rowGroups().get(0).rows()).isEqualTo(10);

    Files.delete(file);
    write(file, 25);
    Files.setLastModifiedTime(file, FileTime.fromMillis(first.getModificationTime() + 5000));
    ParquetFile rewritten = ParquetFooters.read(List.of(status(file, conf)), conf).get(0);
    assertThat(rewritten).as("rewritten: read again").isNotSameAs(read);
    assertThat(rewritten.rowGroups().get(0).rows()).isEqualTo(25);
  }

  private static FileStatus status(Path file, Configuration conf) throws IOException {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
    return FileSystem.get(path.toUri(), conf).getFileStatus(path);
  }

  private static void write(Path file, int rows) throws IOException {
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
            .withType(SCHEMA)
            .withConf(new Configuration())
            .build()) {
      for (long id = 0; id < rows; id++) {
        writer.write(groups.newGroup().append("id", id));
      }
    }
  }
}
