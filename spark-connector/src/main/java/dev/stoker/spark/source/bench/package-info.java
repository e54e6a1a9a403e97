/**
 * The {@code spark-source} benchmark: the same Parquet data read into fixed-size batches per rank
 * through {@code format("stoker")} and through what a user would otherwise write with Spark
 * ({@code spark.read.parquet}, {@code repartition(worldSize)}, rows batched per partition). A
 * benchmark, not a test: it measures and reports, it asserts nothing.
 */
package dev.stoker.spark.source.bench;
