package dev.stoker.spark.run;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.shard.MappedShard;

/**
 * What a rank's one loader reads, and what the rank reports of it: its shard of rows (the rows
 * path, {@link ShardRank}), or its planned Parquet runs streamed with their optional cache ({@link
 * PlannedRank}).
 */
interface RankData {
  /** The rank's loader over the data, on {@code device}. */
  DataLoader loader(LoaderOptions options, Device device) throws Exception;

  /** Rows of the input the rank holds. */
  long rows();

  /** Samples of an epoch (rows, padded to the ranks' common count). */
  int samples();

  long droppedRows();

  long paddedRows();

  int batchesPerEpoch();

  /** The folder of the rank's shard on the executor's disk, or null without one. */
  String folder();

  /** Bytes of the rank's shard, 0 without one. */
  long bytes();

  /** Seconds spent writing the shard. */
  double seconds();

  /** The mapped shard, to tell its faults; null without one. */
  MappedShard shard();

  /** Time the rank's reading has waited for remote storage so far, in nanoseconds. */
  default long storageWaitNanos() {
    return 0;
  }

  /** The state the rank's loader starts from, or null: a fresh start. */
  default LoaderState resumedFrom() {
    return null;
  }

  /** Lets go of memory the loader read; only once no loader thread can read it. */
  void release();

  /** Deletes the rank's files. */
  void delete();
}
