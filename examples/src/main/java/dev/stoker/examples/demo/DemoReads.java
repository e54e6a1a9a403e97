package dev.stoker.examples.demo;

import java.nio.file.Path;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** The demo's reads of its Parquet tables through {@code format("stoker")}. */
final class DemoReads {
  private DemoReads() {}

  /**
   * {@code table} as {@code ranks} partitions of equal row counts, in batches of {@code batchSize}
   * (the tail dropped), in the order of {@code (seed, epoch)} when shuffled.
   */
  static Dataset<Row> table(
      SparkSession spark,
      Path table,
      int batchSize,
      int ranks,
      long seed,
      int epoch,
      boolean shuffle) {
    return reader(spark, batchSize, ranks, seed, epoch, shuffle)
        .load(table.toString())
        .select("pixels", "label");
  }

  /** The reader of {@link #table} before its path, to add options. */
  static DataFrameReader reader(
      SparkSession spark, int batchSize, int ranks, long seed, int epoch, boolean shuffle) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", batchSize)
        .option("worldSize", ranks)
        .option("shuffle", shuffle)
        .option("seed", seed)
        .option("epoch", epoch)
        .option("dropLast", true);
  }
}
