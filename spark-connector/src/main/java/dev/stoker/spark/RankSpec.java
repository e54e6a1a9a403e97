package dev.stoker.spark;

import dev.stoker.loader.LoaderConfig;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.rows.RowCopier;
import dev.stoker.spark.shard.ShardLayout;
import java.io.Serializable;

/** Everything a rank needs, built and checked on the driver and sent with the barrier stage. */
final class RankSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  final int worldSize;
  final RowCopier copier;
  final LoaderConfig loader;
  final SparkRunOptions run;
  final DeviceFactory devices;
  final RankFunction<?> function;
  final ProgressCounters counters;

  RankSpec(int worldSize, RowCopier copier, LoaderConfig loader, SparkRunOptions run,
      DeviceFactory devices, RankFunction<?> function, ProgressCounters counters) {
    this.worldSize = worldSize;
    this.copier = copier;
    this.loader = loader;
    this.run = run;
    this.devices = devices;
    this.function = function;
    this.counters = counters;
  }

  ShardLayout layout() {
    return copier.layout();
  }

  LoaderOptions options() {
    return loader.options();
  }
}
