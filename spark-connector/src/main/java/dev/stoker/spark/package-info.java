/**
 * Runs Stoker loaders on the ranks of a Spark barrier stage: {@link dev.stoker.spark.StokerSpark}
 * takes a DataFrame, its declared tensor and scalar columns, the loader's options and the number
 * of ranks, and runs a {@link dev.stoker.spark.RankFunction} on every rank with its
 * {@link dev.stoker.spark.RankContext} and a loader over the rank's shard; each rank's result and
 * the {@link dev.stoker.spark.LoadReport} come back. Also here, package-private: the driver's
 * side of a run (the barrier stage and its retries) and a rank's life (shard, loader, progress,
 * cleanup). Uses every other connector package and loader-core; nothing in the connector imports
 * it but the benchmark.
 */
package dev.stoker.spark;
