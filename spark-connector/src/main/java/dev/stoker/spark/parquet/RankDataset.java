package dev.stoker.spark.parquet;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.memory.HostAllocator;

/**
 * One rank's rows as the loader's streamed source: exactly the partition's rows every epoch, read
 * by a {@link RankStream} (or the streams of a {@link GlobalBatch} taking turns, a {@link
 * TurnStream}) whose shuffle windows come from {@code allocator}. With an {@link EpochPlanner}
 * ({@code epochOrder=global}), an epoch other than the read's reads the share that the planner
 * plans for it over the whole input, as many rows, so rows move between ranks from epoch to epoch
 * without a new read.
 */
public final class RankDataset implements StreamedDataset {
  private final ReadConfig config;
  private final RankRuns partition;
  private final HostAllocator allocator;
  private final SourceCounters counters;
  private final Schema schema;

  /** Plans the epochs other than the read's; null: the partition's rows every epoch. */
  private final EpochPlanner epochs;

  public RankDataset(
      ReadConfig config, RankRuns partition, HostAllocator allocator, SourceCounters counters) {
    this(config, partition, allocator, counters, null);
  }

  /** The rank's rows, each epoch other than the read's planned by {@code epochs} (may be null). */
  public RankDataset(
      ReadConfig config,
      RankRuns partition,
      HostAllocator allocator,
      SourceCounters counters,
      EpochPlanner epochs) {
    this.config = config;
    this.partition = partition;
    this.allocator = allocator;
    this.counters = counters;
    this.schema = config.loaderSchema();
    this.epochs = epochs;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public long rowCount() {
    return partition.rows();
  }

  @Override
  public ChunkStream open(StreamRequest request) {
    RankRuns share =
        epochs == null || request.epoch() == config.epoch()
            ? partition
            : epochs.runs(partition.rank(), request.epoch());
    return TurnStream.open(config, share, request, allocator, counters, null);
  }
}
