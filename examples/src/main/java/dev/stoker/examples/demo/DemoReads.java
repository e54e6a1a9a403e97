package dev.stoker.examples.demo;

import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SparkSession;

/** The demo's reads of its Parquet tables through {@code format("stoker")}. */
final class DemoReads {
  private DemoReads() {}

  /**
   * A read as {@code ranks} partitions of equal row counts, in batches of {@code batchSize} (the
   * tail dropped), shuffled by {@code seed} when asked; before its path, to add options.
   */
  static DataFrameReader reader(
      SparkSession spark, int batchSize, int ranks, long seed, boolean shuffle) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", batchSize)
        .option("worldSize", ranks)
        .option("shuffle", shuffle)
        .option("seed", seed)
        .option("dropLast", true);
  }
}
