/**
 * The Spark benchmarks behind {@code stoker bench}: {@code --workload spark} (the same Parquet
 * DataFrame into rank loaders through Stoker and into batches through Row objects) and
 * {@code --workload spark-source} ({@code format("stoker")} against Spark's own Parquet read).
 * Uses the connector's public API, the DataSource's scan and Spark; nothing imports it.
 */
package dev.stoker.spark.bench;
