package dev.stoker.spark.run;

import dev.stoker.loader.LoaderConfig;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.DeviceFactory;
import dev.stoker.spark.RankFunction;
import dev.stoker.spark.SparkRunOptions;
import dev.stoker.spark.progress.ProgressCounters;
import dev.stoker.spark.rows.RowCopier;
import dev.stoker.spark.shard.Normalization;
import dev.stoker.spark.shard.ShardLayout;
import java.io.Serializable;
import java.util.List;

/** Everything a rank needs, built and checked on the driver and sent with the barrier stage. */
public final class RankSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  final int worldSize;
  final RowCopier copier;
  final LoaderConfig loader;
  final SparkRunOptions run;
  final DeviceFactory devices;
  final RankFunction<?> function;
  final ProgressCounters counters;

  /** What the loader normalizes as it writes samples (the shard stays raw). */
  final Normalization[] normalizations;

  /** Where the ranks commit their states and ask where to start; null: they cannot. */
  final CommitEndpoint commits;

  public RankSpec(
      int worldSize,
      RowCopier copier,
      LoaderConfig loader,
      SparkRunOptions run,
      DeviceFactory devices,
      RankFunction<?> function,
      ProgressCounters counters,
      List<Normalization> normalizations) {
    this.worldSize = worldSize;
    this.copier = copier;
    this.loader = loader;
    this.run = run;
    this.devices = devices;
    this.function = function;
    this.counters = counters;
    this.normalizations = normalizations.toArray(new Normalization[0]);
    this.commits = null;
  }

  private RankSpec(RankSpec spec, CommitEndpoint commits) {
    this.worldSize = spec.worldSize;
    this.copier = spec.copier;
    this.loader = spec.loader;
    this.run = spec.run;
    this.devices = spec.devices;
    this.function = spec.function;
    this.counters = spec.counters;
    this.normalizations = spec.normalizations;
    this.commits = commits;
  }

  /** This spec, its ranks committing to {@code commits}. */
  RankSpec withCommits(CommitEndpoint commits) {
    return new RankSpec(this, commits);
  }

  ShardLayout layout() {
    return copier.layout();
  }

  LoaderOptions options() {
    return loader.options();
  }
}
