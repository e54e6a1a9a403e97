package dev.stoker.examples.demo;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.stats.ChannelStats;
import dev.stoker.loader.stats.FieldStats;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The per-channel mean and standard deviation of the training pixels (scaled to [0, 1]), computed
 * with Stoker over the ranks: each rank accumulates its share, the ranks exchange their partial
 * statistics once and merge them.
 */
final class PixelStats {
  /** Rows per batch of the pass; its tail is dropped, so a round number counts (nearly) all. */
  private static final int BATCH = 250;

  /** The statistics and the pass's throughput. */
  record Result(double[] mean, double[] std, long rows, double samplesPerSecond, double seconds) {}

  private PixelStats() {}

  static Result compute(SparkSession spark, Path train, int ranks, long seed) {
    long begin = System.nanoTime();
    TrainingResult<byte[]> run =
        StokerSpark.on(
                DemoReads.reader(spark, BATCH, ranks, seed, false)
                    .load(train.toString())
                    .select("pixels", "label"))
            .tensor("pixels", DType.UINT8, 1, 28, 28)
            .options(LoaderOptions.builder().batchSize(BATCH).dropLast(true).numWorkers(1).build())
            .worldSize(ranks)
            .run(
                (rank, loader) -> {
                  ChannelStats mine = FieldStats.compute(loader, "pixels", 0, 1 / 255.0);
                  ChannelStats all = new ChannelStats(mine.channels());
                  for (byte[] partial : rank.allGather(mine.toBytes())) {
                    all.merge(ChannelStats.fromBytes(partial));
                  }
                  return all.toBytes();
                });
    ChannelStats stats = ChannelStats.fromBytes(run.result(0));
    double rate = run.report().ranks().stream().mapToDouble(r -> r.samplesPerSecond()).sum();
    return new Result(
        stats.means(), stats.stds(), stats.count(0) / 784, rate, (System.nanoTime() - begin) / 1e9);
  }
}
