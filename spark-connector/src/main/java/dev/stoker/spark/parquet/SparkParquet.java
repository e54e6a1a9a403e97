package dev.stoker.spark.parquet;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.types.StructType;

/**
 * Spark's Parquet classes as this source uses them, in one place: the schema converter and the
 * vectorized reader, opened on a split of exactly the row groups wanted (Hadoop's standard {@code
 * initialize(split, context)}, the same on Spark 3.5 and 4.x), reading into off-heap column
 * vectors. The settings they read from the Hadoop configuration are set here.
 */
public final class SparkParquet {
  private SparkParquet() {}

  /** {@code conf} with the settings Spark's converter and reader expect, for our column types. */
  static Configuration configure(Configuration conf) {
    conf.setBoolean("spark.sql.parquet.binaryAsString", false);
    conf.setBoolean("spark.sql.parquet.int96AsTimestamp", true);
    conf.setBoolean("spark.sql.caseSensitive", true);
    conf.setBoolean("spark.sql.parquet.inferTimestampNTZ.enabled", true);
    conf.setBoolean("spark.sql.legacy.parquet.nanosAsLong", false);
    return conf;
  }

  /** The Spark schema of a Parquet schema, as {@code spark.read.parquet} would read it. */
  static StructType sparkSchema(MessageType schema, Configuration configured) {
    return new ParquetToSparkSchemaConverter(configured).convert(schema);
  }

  /**
   * A reader of the row groups of {@code path} whose midpoints lie in {@code [start, start +
   * length)}, with {@code requested} columns, {@code capacity} rows per batch.
   */
  static Reader open(
      String path,
      long start,
      long length,
      StructType requested,
      Configuration configured,
      int capacity,
      ColumnNames names)
      throws IOException {
    Configuration conf = new Configuration(configured);
    if (!names.byName()) {
      requested = names.inFile(requested, fileSchema(path, conf), path);
    }
    conf.set(ParquetInputFormat.READ_SUPPORT_CLASS, ParquetReadSupport.class.getName());
    conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA(), requested.json());
    Reader reader = new Reader(capacity);
    try {
      reader.initialize(
          new FileSplit(new Path(path), start, length, new String[0]),
          new TaskAttemptContextImpl(conf, new TaskAttemptID()));
      reader.resultBatch(); // makes the batch, which nextBatch() fills
    } catch (IOException | RuntimeException e) {
      reader.close();
      throw e;
    } catch (InterruptedException e) {
      reader.close();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted opening " + path, e);
    }
    return reader;
  }

  /** The schema of {@code path}'s footer. */
  private static MessageType fileSchema(String path, Configuration conf) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(new Path(path), conf))) {
      return reader.getFileMetaData().getSchema();
    }
  }

  /** Spark's vectorized reader into off-heap vectors, telling the rows its split holds. */
  public static final class Reader extends VectorizedParquetRecordReader {
    private boolean closed;

    Reader(int capacity) {
      super(true, capacity);
      OpenCounts.opened(OpenCounts.Kind.SPARK_PARQUET_READERS);
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        OpenCounts.closed(OpenCounts.Kind.SPARK_PARQUET_READERS);
        super.close();
      }
    }

    /** Rows of the row groups the split selected. */
    long rowCount() {
      return totalRowCount;
    }
  }
}
