package dev.stoker.spark.run;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Placement;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.util.Closer;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.ShuffleWindow;
import dev.stoker.spark.parquet.SourceCounters;
import dev.stoker.spark.run.balance.RankSizing;
import dev.stoker.spark.run.shard.MappedShard;
import dev.stoker.spark.run.shard.Normalization;
import dev.stoker.spark.run.shard.ShardDataset;
import dev.stoker.spark.run.shard.ShardFiles;
import java.util.List;

/**
 * What a rank's one loader reads, and what the rank reports of it: its shard of rows (the rows
 * path), or its planned Parquet runs streamed with their optional cache.
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

  /** The state the rank's loader starts from, or null: a fresh start. */
  default LoaderState resumedFrom() {
    return null;
  }

  /** Lets go of memory the loader read; only once no loader thread can read it. */
  void release();

  /** Deletes the rank's files. */
  void delete();

  /** The rows path: a shard written before the loader starts, read by index. */
  static RankData shard(MappedShard shard, ShardFiles files, RankSizing sizing, int rank,
      Normalization[] normalizations, double seconds) {
    return new RankData() {
      @Override
      public DataLoader loader(LoaderOptions options, Device device) {
        ShardDataset dataset = new ShardDataset(shard, sizing.samples(), List.of(normalizations));
        return DataLoader.builder(dataset).options(options).device(device).build();
      }

      @Override
      public long rows() {
        return shard.rows();
      }

      @Override
      public int samples() {
        return sizing.samples();
      }

      @Override
      public long droppedRows() {
        return sizing.droppedRows(rank);
      }

      @Override
      public long paddedRows() {
        return sizing.paddedRows(rank);
      }

      @Override
      public int batchesPerEpoch() {
        return sizing.batchesPerEpoch();
      }

      @Override
      public String folder() {
        return files.folder().toString();
      }

      @Override
      public long bytes() {
        return shard.bytes();
      }

      @Override
      public double seconds() {
        return seconds;
      }

      @Override
      public MappedShard shard() {
        return shard;
      }

      @Override
      public void release() {
        shard.release();
      }

      @Override
      public void delete() {
        files.delete();
      }
    };
  }

  /**
   * A streaming rank: its {@code runs} of {@code plan} (whose figures only are used), read with
   * {@code config} into a
   * loader whose shuffle windows are allocated here and freed on {@link #release()}.
   */
  static RankData planned(ReadConfig config, ReadPlan plan, RankRuns runs, int worldSize,
      PlannedDataset.Parts parts, RankCache cache, CommitLog.Start start) {
    int rank = runs.rank();
    return new RankData() {
      private DirectAllocator windows;

      @Override
      public DataLoader loader(LoaderOptions options, Device device) {
        int windowRows = runs.windowRows(config.windowRows());
        if (start != null) {
          windowRows = Math.max(windowRows, start.runs().windowRows(config.windowRows()));
        }
        windows = new DirectAllocator(options.name() + "-windows", 2 * ShuffleWindow.bytes(
            config.columns(), windowRows));
        PlannedDataset dataset = new PlannedDataset(config, runs, parts.schema(),
            parts.converters(), cache, windows, new SourceCounters(), start);
        DataLoader.Builder builder = DataLoader.builder(dataset).options(options)
            .placement(Placement.of(rank, worldSize)).device(device);
        if (start != null) {
          builder.resumeFrom(start.state());
        }
        return builder.build();
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
        long start = (long) rank * plan.rowsPerRank();
        return Math.max(0, Math.min(plan.rowsPerRank(), start + plan.rowsPerRank() - plan.rows()));
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

      @Override
      public void release() {
        Closer closer = new Closer();
        closer.run(cache::close);
        if (windows != null) {
          closer.run(windows::close);
        }
        closer.throwIfAny();
      }

      @Override
      public void delete() {
        cache.close();
      }
    };
  }
}
