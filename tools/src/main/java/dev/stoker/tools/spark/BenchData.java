package dev.stoker.tools.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The benchmark's data, in the layout Spark writes: an int {@code label} and an {@code image} list
 * of floats that look random (so Parquet stores them plain, as it stores real float features),
 * snappy-compressed, in files of 25,000 rows and row groups of 16 MiB. Written with Parquet's own
 * writer, a few seconds where Spark's SQL functions take minutes.
 */
final class BenchData {
  static final long ROWS_PER_FILE = 25_000;
  static final long ROW_GROUP_BYTES = 16L << 20;
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message spark_schema { optional int32 label; optional group image (LIST) { "
              + "repeated group list { optional float element; } } }");

  private BenchData() {}

  static void write(String dir, long rows, int elements) {
    write(dir, rows, elements, new Configuration());
  }

  /** Writes the data to {@code dir} of any Hadoop file system {@code conf} reaches. */
  static void write(String dir, long rows, int elements, Configuration conf) {
    int files = (int) Math.max(1, (rows + ROWS_PER_FILE - 1) / ROWS_PER_FILE);
    IntStream.range(0, files)
        .parallel()
        .forEach(
            file -> {
              long first = file * ROWS_PER_FILE;
              long last = Math.min(rows, first + ROWS_PER_FILE);
              Path path = new Path(dir, String.format("part-%05d.snappy.parquet", file));
              try (ParquetWriter<Long> writer =
                  new Builder(path, elements)
                      .withCompressionCodec(CompressionCodecName.SNAPPY)
                      .withRowGroupSize(ROW_GROUP_BYTES)
                      .withConf(conf)
                      .build()) {
                for (long id = first; id < last; id++) {
                  writer.write(id);
                }
              } catch (IOException e) {
                throw new UncheckedIOException("writing " + path + ": " + e.getMessage(), e);
              }
            });
  }

  private static final class Builder extends ParquetWriter.Builder<Long, Builder> {
    private final int elements;

    Builder(Path path, int elements) {
      super(path);
      this.elements = elements;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Long> getWriteSupport(Configuration conf) {
      return new RowWriter(elements);
    }
  }

  /** Writes row {@code id}: label {@code id % 10}, floats from a generator seeded by the id. */
  private static final class RowWriter extends WriteSupport<Long> {
    private final int elements;
    private RecordConsumer out;

    RowWriter(int elements) {
      this.elements = elements;
    }

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(SCHEMA, Map.of());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.out = recordConsumer;
    }

    @Override
    public void write(Long id) {
      SplittableRandom random = new SplittableRandom(id);
      out.startMessage();
      out.startField("label", 0);
      out.addInteger((int) (id % 10));
      out.endField("label", 0);
      out.startField("image", 1);
      out.startGroup();
      out.startField("list", 0);
      for (int i = 0; i < elements; i++) {
        out.startGroup();
        out.startField("element", 0);
        out.addFloat((float) random.nextDouble(-1, 1));
        out.endField("element", 0);
        out.endGroup();
      }
      out.endField("list", 0);
      out.endGroup();
      out.endField("image", 1);
      out.endMessage();
    }
  }
}
