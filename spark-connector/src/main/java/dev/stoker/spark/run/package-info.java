/**
 * The runner: the driver's side of a run (which path the input takes, the barrier stage, its
 * retries, the results) and a rank's life in its barrier task (its one loader over the planned
 * Parquet runs or its shard of rows, the shard cache on disk or in memory, the device, progress,
 * cleanup). A plain Parquet scan or a {@code format("stoker")} read is planned by {@code
 * dev.stoker.spark.parquet} and streamed into the ranks' loaders; any other DataFrame goes through
 * the rows path ({@code dev.stoker.spark.rows}, {@code balance}) into each rank's shard ({@code
 * dev.stoker.spark.shard}). Implements the API's {@link dev.stoker.spark.RankContext}; nothing in
 * the connector imports it but the API's builder.
 */
package dev.stoker.spark.run;
