package dev.stoker.spark.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Files written by Parquet's own writer in every codec Spark writes, with data pages v1 and v2,
 * dictionaries that fall back to plain pages midway, many pages and row groups, and page
 * checksums: Stoker's page reader and decoder give back exactly the values written.
 */
class SplitDecoderFormatsTest {
  private static final int ROWS = 3000;
  private static final int WIDTH = 8;
  private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
      "message spark_schema { optional group image (LIST) { repeated group list { "
          + "optional float element; } } optional int32 label; }");
  private static final List<Field> FIELDS =
      List.of(Field.of("image", DType.FLOAT32, WIDTH), Field.scalar("label", DType.INT32));

  @TempDir
  Path folder;

  @ParameterizedTest
  @EnumSource(value = CompressionCodecName.class,
      names = {"UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4_RAW"})
  void shouldDecodeEveryValueOfPagesV1(CompressionCodecName codec) throws IOException {
    check(write(codec, WriterVersion.PARQUET_1_0));
  }

  @ParameterizedTest
  @EnumSource(value = CompressionCodecName.class,
      names = {"UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4_RAW"})
  void shouldDecodeEveryValueOfPagesV2(CompressionCodecName codec) throws IOException {
    check(write(codec, WriterVersion.PARQUET_2_0));
  }

  private void check(String path) throws IOException {
    Configuration conf = new Configuration();
    conf.setBoolean("parquet.page.verify-checksum.enabled", true);
    assertNull(SplitDecoder.whyNot(List.of(path), FIELDS, conf));
    try (ParquetFileReader reader = ParquetFileReader.open(
        HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(path), conf))) {
      List<BlockMetaData> groups = reader.getFooter().getBlocks();
      assertTrue(groups.size() > 1, "row groups: " + groups.size());
      assertTrue(groups.get(0).getColumns().get(0).getEncodingStats().hasDictionaryPages(),
          "the image column starts with a dictionary");
    }
    ByteBuffer images = ByteBuffer.allocateDirect(ROWS * WIDTH * 4).order(ByteOrder.nativeOrder());
    ByteBuffer labels = ByteBuffer.allocateDirect(ROWS * 4).order(ByteOrder.nativeOrder());
    int rows = 0;
    try (SplitDecoder decoder = new SplitDecoder(
        new SplitDecoder.Split(path, 0, new File(path.substring(5)).length()), FIELDS, conf)) {
      assertEquals(ROWS, decoder.rows());
      ByteBuffer[] block = {ByteBuffer.allocateDirect(500 * WIDTH * 4),
          ByteBuffer.allocateDirect(500 * 4)};
      for (int n = decoder.read(500, block); n > 0; n = decoder.read(500, block)) {
        images.put(rows * WIDTH * 4, block[0], 0, n * WIDTH * 4);
        labels.put(rows * 4, block[1], 0, n * 4);
        rows += n;
      }
    }
    assertEquals(ROWS, rows);
    for (int row = 0; row < ROWS; row++) {
      assertEquals(row % 10, labels.getInt(row * 4), "label of row " + row);
      for (int e = 0; e < WIDTH; e++) {
        assertEquals(value(row, e), images.getFloat((row * WIDTH + e) * 4),
            "element " + e + " of row " + row + " in " + path);
      }
    }
  }

  /** The first rows repeat few values (a dictionary), the later ones overflow it. */
  private static float value(int row, int element) {
    return row < ROWS / 3 ? (row % 7) * 0.5f + element : row * 1.25f + element * 0.001f;
  }

  private String write(CompressionCodecName codec, WriterVersion version) throws IOException {
    File file = folder.resolve(codec + "-" + version + ".parquet").toFile();
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer = ExampleParquetWriter
        .builder(new org.apache.hadoop.fs.Path(file.toURI())).withType(SCHEMA)
        .withConf(new Configuration()).withCompressionCodec(codec).withWriterVersion(version)
        .withDictionaryEncoding(true).withDictionaryPageSize(1024).withPageSize(2048)
        .withRowGroupSize(8_000).withPageWriteChecksumEnabled(true).build()) {
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
