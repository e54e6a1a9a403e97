package dev.stoker.spark;

import dev.stoker.spark.progress.ProgressCounters;

/**
 * How far one rank is, as the driver sees it while the ranks run: from the rank's accumulators,
 * which executors report with their heartbeats ({@code spark.executor.heartbeatInterval}) and once
 * more when the task ends. The same values show per task in the Spark UI, as the accumulators
 * {@value #ROWS_LOADED}, {@value #BATCHES_DELIVERED} and {@value #WAIT_MILLIS}.
 *
 * @param rowsLoaded rows read into the rank's shard so far
 * @param batchesDelivered batches handed to the rank's function, over all epochs
 * @param waitMillis time the rank's function waited for batches
 * @param finished the rank's task has ended (these are its last values)
 */
public record RankProgress(
    int rank, long rowsLoaded, long batchesDelivered, long waitMillis, boolean finished) {
  /** The accumulator of rows read into the shards. */
  public static final String ROWS_LOADED = ProgressCounters.ROWS_LOADED;

  /** The accumulator of batches handed to the rank functions. */
  public static final String BATCHES_DELIVERED = ProgressCounters.BATCHES_DELIVERED;

  /** The accumulator of the time the rank functions waited for batches, in ms. */
  public static final String WAIT_MILLIS = ProgressCounters.WAIT_MILLIS;
}
