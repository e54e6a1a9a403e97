package dev.stoker.spark.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.stoker.loader.DType;
import dev.stoker.loader.memory.DirectAllocator;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Files written by Parquet's own writer in every codec Spark writes, with data pages v1 and v2,
 * dictionaries that fall back to plain pages midway, many pages and row groups, and page checksums:
 * Stoker's run reader (page reader and decoder) gives back exactly the values written.
 */
class RunReaderFormatsTest {
  private static final int ROWS = 3000;
  private static final int WIDTH = 8;
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message spark_schema { optional group image (LIST) { repeated group list { "
              + "optional float element; } } optional int32 label; }");

  @TempDir Path folder;

  @ParameterizedTest
  @EnumSource(
      value = CompressionCodecName.class,
      names = {"UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4_RAW"})
  void shouldDecodeEveryValueOfPagesV1(CompressionCodecName codec) throws IOException {
    check(write(codec, WriterVersion.PARQUET_1_0));
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionCodecName.class,
      names = {"UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4_RAW"})
  void shouldDecodeEveryValueOfPagesV2(CompressionCodecName codec) throws IOException {
    check(write(codec, WriterVersion.PARQUET_2_0));
  }

  private void check(String path) throws IOException {
    Configuration conf = new Configuration();
    List<BlockMetaData> groups;
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(path), conf))) {
      groups = reader.getFooter().getBlocks();
      assertTrue(groups.size() > 1, "row groups: " + groups.size());
      assertTrue(
          groups.get(0).getColumns().get(0).getEncodingStats().hasDictionaryPages(),
          "the image column starts with a dictionary");
    }
    List<ColumnSpec> specs =
        List.of(
            new ColumnSpec(
                "image", SourceColumn.Kind.LIST, DType.FLOAT32, new int[] {WIDTH}, "test"),
            new ColumnSpec("label", SourceColumn.Kind.SCALAR, DType.INT32, new int[0], "test"));
    long length = new File(path.substring(5)).length();
    ReadRun run = new ReadRun(path, 0, length, 0, groups.size(), 0, ROWS, 0, ROWS, length, true);
    ReadConfig config =
        new ReadConfig(null, 0, null, specs, ROWS, ROWS, new HadoopConf(conf), true);
    ByteBuffer images;
    ByteBuffer labels;
    try (DirectAllocator allocator = new DirectAllocator("formats", 1 << 20);
        ShuffleWindow window = new ShuffleWindow(allocator, specs, ROWS);
        ParquetRunReader reader = new ParquetRunReader(run, config, conf)) {
      for (int row = 0; row < ROWS; ) {
        int n = reader.read(window, row, Math.min(500, ROWS - row));
        assertTrue(n > 0, "rows read at row " + row);
        row += n;
      }
      ByteBuffer bytes = window.buffer().duplicate().order(ByteOrder.nativeOrder());
      images =
          bytes.slice(window.offset(0, 0, ROWS), ROWS * WIDTH * 4).order(ByteOrder.nativeOrder());
      labels = bytes.slice(window.offset(1, 0, ROWS), ROWS * 4).order(ByteOrder.nativeOrder());
      for (int row = 0; row < ROWS; row++) {
        assertEquals(row % 10, labels.getInt(row * 4), "label of row " + row);
        for (int e = 0; e < WIDTH; e++) {
          assertEquals(
              value(row, e),
              images.getFloat((row * WIDTH + e) * 4),
              "element " + e + " of row " + row + " in " + path);
        }
      }
    }
  }

  @Test
  void shouldPassOverTheRowsATableDeletedWithEitherReader() throws IOException {
    String path = write(CompressionCodecName.SNAPPY, WriterVersion.PARQUET_1_0);
    Configuration conf = new Configuration();
    SparkParquet.configure(conf);
    int groups;
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(path), conf))) {
      groups = reader.getFooter().getBlocks().size();
    }
    List<Long> starts = new ArrayList<>();
    List<Long> ends = new ArrayList<>();
    List<Integer> expected = new ArrayList<>();
    for (int row = 0; row < ROWS; row++) {
      // single rows, a stretch across a row group's end, and the file's last rows deleted
      if (row % 5 != 2 && (row < 900 || row >= 1400) && row < ROWS - 7) {
        starts.add((long) row);
        ends.add(row + 1L);
        expected.add(row);
      }
    }
    KeptRows kept =
        KeptRows.of(
            starts.stream().mapToLong(Long::longValue).toArray(),
            ends.stream().mapToLong(Long::longValue).toArray());
    int skip = 100;
    int rows = expected.size() - skip - 30;
    List<Integer> wanted = expected.subList(skip, skip + rows);
    List<ColumnSpec> specs =
        List.of(new ColumnSpec("label", SourceColumn.Kind.SCALAR, DType.INT32, new int[0], "t"));
    long length = new File(path.substring(5)).length();
    ReadRun run =
        new ReadRun(path, 0, length, 0, groups, 0, ROWS, skip, rows, length, true, -1, kept);
    ReadConfig config =
        new ReadConfig(null, 0, labelSchema(), specs, ROWS, 512, new HadoopConf(conf), true);
    for (boolean spark : new boolean[] {false, true}) {
      try (DirectAllocator allocator = new DirectAllocator("kept", 1 << 20);
          ShuffleWindow window = new ShuffleWindow(allocator, specs, ROWS);
          RunReader reader =
              spark
                  ? new SparkRunReader(run, config, conf)
                  : new ParquetRunReader(run, config, conf)) {
        for (int row = 0; row < rows; ) {
          int n = reader.read(window, row, Math.min(333, rows - row));
          assertTrue(n > 0, "rows read at row " + row);
          row += n;
        }
        ByteBuffer labels =
            window
                .buffer()
                .duplicate()
                .order(ByteOrder.nativeOrder())
                .slice(window.offset(0, 0, rows), rows * 4)
                .order(ByteOrder.nativeOrder());
        for (int i = 0; i < rows; i++) {
          assertEquals(
              wanted.get(i) % 10,
              labels.getInt(i * 4),
              (spark ? "Spark's" : "Stoker's")
                  + " reader, row "
                  + i
                  + " (file row "
                  + wanted.get(i)
                  + ")");
        }
      }
    }
  }

  private static org.apache.spark.sql.types.StructType labelSchema() {
    return new org.apache.spark.sql.types.StructType()
        .add("label", org.apache.spark.sql.types.DataTypes.IntegerType);
  }

  /** The first rows repeat few values (a dictionary), the later ones overflow it. */
  private static float value(int row, int element) {
    return row < ROWS / 3 ? (row % 7) * 0.5f + element : row * 1.25f + element * 0.001f;
  }

  private String write(CompressionCodecName codec, WriterVersion version) throws IOException {
    File file = folder.resolve(codec + "-" + version + ".parquet").toFile();
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toURI()))
            .withType(SCHEMA)
            .withConf(new Configuration())
            .withCompressionCodec(codec)
            .withWriterVersion(version)
            .withDictionaryEncoding(true)
            .withDictionaryPageSize(1024)
            .withPageSize(2048)
            .withRowGroupSize(8_000)
            .withPageWriteChecksumEnabled(true)
            .build()) {
      for (int row = 0; row < ROWS; row++) {
        Group group = groups.newGroup();
        Group image = group.addGroup("image");
        for (int e = 0; e < WIDTH; e++) {
          image.addGroup("list").append("element", value(row, e));
        }
        group.append("label", row % 10);
        writer.write(group);
      }
    }
    return "file:" + file.getPath();
  }
}
