package dev.stoker.spark.run;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.util.Closer;
import dev.stoker.spark.parquet.EpochPlanner;
import dev.stoker.spark.parquet.RankLoader;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.SourceCounters;
import dev.stoker.spark.shard.MappedShard;

/**
 * A streaming rank: its runs of a plan (whose figures only are used here) read into the rank's
 * {@link RankLoader} over a {@link PlannedDataset}, with the optional shard cache; the loader's
 * shuffle windows are freed on {@link #release()}.
 */
final class PlannedRank implements RankData {
  private final ReadConfig config;
  private final ReadPlan plan;
  private final RankRuns runs;
  private final EpochPlanner epochs;
  private final int worldSize;
  private final PlannedDataset.Parts parts;
  private final RankCache cache;
  private final CommitLog.Start start;
  private final SourceCounters counters = new SourceCounters();
  private RankLoader loader;

  /**
   * @param epochs plans each epoch again over the whole input, or null: {@code runs} every epoch
   * @param start the epoch resumed mid-way and the rank's runs for its rest, or null
   */
  PlannedRank(
      ReadConfig config,
      ReadPlan plan,
      RankRuns runs,
      EpochPlanner epochs,
      int worldSize,
      PlannedDataset.Parts parts,
      RankCache cache,
      CommitLog.Start start) {
    this.config = config;
    this.plan = plan;
    this.runs = runs;
    this.epochs = epochs;
    this.worldSize = worldSize;
    this.parts = parts;
    this.cache = cache;
    this.start = start;
  }

  @Override
  public DataLoader loader(LoaderOptions options, Device device) {
    RankLoader.Builder builder =
        RankLoader.builder(config, runs)
            .options(options)
            .worldSize(worldSize)
            .device(device)
            .dataset(
                windows ->
                    new PlannedDataset(
                        config,
                        runs,
                        epochs,
                        parts.schema(),
                        parts.converters(),
                        cache,
                        windows,
                        counters,
                        start));
    if (start != null) {
      builder.resumeFrom(start.state(), start.runs());
    }
    loader = builder.build();
    return loader.loader();
  }

  @Override
  public long storageWaitNanos() {
    return counters.storageWaitNanos.sum();
  }

  @Override
  public LoaderState resumedFrom() {
    return start == null ? null : start.state();
  }

  @Override
  public long rows() {
    return runs.rows();
  }

  @Override
  public int samples() {
    return (int) Math.min(Integer.MAX_VALUE, runs.rows());
  }

  /** None: the rows the plan leaves out are no rank's (the load report counts them). */
  @Override
  public long droppedRows() {
    return 0;
  }

  @Override
  public long paddedRows() {
    long first = (long) runs.rank() * plan.rowsPerRank();
    return Math.max(0, Math.min(plan.rowsPerRank(), first + plan.rowsPerRank() - plan.rows()));
  }

  @Override
  public int batchesPerEpoch() {
    return plan.batchesPerRank();
  }

  @Override
  public String folder() {
    return cache.folder();
  }

  @Override
  public long bytes() {
    return cache.bytes();
  }

  @Override
  public double seconds() {
    return cache.writeSeconds();
  }

  @Override
  public MappedShard shard() {
    return cache.mapped();
  }

  /** Closes the cache, then the loader's windows (the loader itself is closed by then). */
  @Override
  public void release() {
    Closer closer = new Closer();
    closer.run(cache::close);
    if (loader != null) {
      closer.run(loader::close);
    }
    closer.throwIfAny();
  }

  @Override
  public void delete() {
    cache.close();
  }
}
