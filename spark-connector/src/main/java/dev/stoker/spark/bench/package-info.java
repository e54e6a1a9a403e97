/**
 * The Spark ingest benchmark behind {@code stoker bench --workload spark}: the same Parquet
 * DataFrame into batches through Stoker's row-to-column path and through Row objects. Uses the
 * connector's public API and Spark; nothing imports it.
 */
package dev.stoker.spark.bench;
