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

/**
 * Footers are read once per file version: a file rewritten in place is read again; a rank reads a
 * local file's whole footer once.
 */
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

  /**
   * A rank's own read of a local file's footer holds every row group (a reader of a run is told its
   * row groups by their ordinals in the whole footer), the file's status, and the footer as read,
   * served again without parsing.
   */
  @Test
  void shouldReadAWholeFooterWithItsStatusOnce() throws IOException {
    Path file = folder.resolve("groups.parquet");
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
            .withType(SCHEMA)
            .withConf(new Configuration())
            .withRowGroupSize(4096L)
            .withPageSize(1024)
            .build()) {
      for (long id = 0; id < 20_000; id++) {
        writer.write(groups.newGroup().append("id", id));
      }
    }
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
    FileFooter footer = FileFooter.read(path, conf);
    assertThat(footer.status()).isEqualTo(status(file, conf));
    assertThat(footer.status().getLen()).isEqualTo(Files.size(file));
    var blocks = footer.read().getBlocks();
    assertThat(blocks).hasSizeGreaterThan(2);
    assertThat(blocks.stream().mapToLong(b -> b.getRowCount()).sum()).isEqualTo(20_000);
    assertThat(footer.read()).as("kept as read").isSameAs(footer.read());
    assertThat(footer.bytes()).isPositive();
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
