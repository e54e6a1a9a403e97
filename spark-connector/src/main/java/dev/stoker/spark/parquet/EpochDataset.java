package dev.stoker.spark.parquet;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.memory.HostAllocator;

/**
 * A rank's rows in a global epoch order ({@code epochOrder=global}): in the read's own epoch the
 * runs it was planned, in any other the share that {@link EpochPlanner} plans for that epoch over
 * the whole input, so rows move between ranks from epoch to epoch without a new read. Every epoch
 * holds as many rows (the same input over as many ranks).
 */
public final class EpochDataset implements StreamedDataset {
  private final ReadConfig config;
  private final RankRuns runs;
  private final EpochPlanner epochs;
  private final HostAllocator windows;
  private final SourceCounters counters;
  private final Schema schema;

  public EpochDataset(
      ReadConfig config,
      RankRuns runs,
      EpochPlanner epochs,
      HostAllocator windows,
      SourceCounters counters) {
    this.config = config;
    this.runs = runs;
    this.epochs = epochs;
    this.windows = windows;
    this.counters = counters;
    this.schema = config.loaderSchema();
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public long rowCount() {
    return runs.rows();
  }

  @Override
  public ChunkStream open(StreamRequest request) {
    RankRuns share =
        request.epoch() == config.epoch() ? runs : epochs.runs(runs.rank(), request.epoch());
    return TurnStream.open(config, share, request, windows, counters, null);
  }
}
