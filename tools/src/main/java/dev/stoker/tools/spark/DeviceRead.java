package dev.stoker.tools.spark;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.DeviceFactory;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.RankFunction;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The device path: the same {@code format("stoker")} read as {@link StokerRead}'s, handed to {@link
 * StokerSpark} and run on every rank into one loader with the rank's device, one epoch consumed as
 * a training step would: it waits for each batch to be on the device and touches its columns there.
 * Only the public API of the runner is used, so the path is whatever the runner makes of such a
 * DataFrame. The batch options are given to both sides, with the same values.
 */
final class DeviceRead {
  /** What one run gave: the batches, when the first came, and the ranks' device. */
  record Run(
      BatchCount count,
      double firstBatchSeconds,
      double firstBatchFromCallSeconds,
      String device) {}

  private DeviceRead() {}

  static Run read(
      SparkSession spark, String data, DeviceBench.Config config, DeviceFactory devices) {
    StageClock stages = new StageClock();
    spark.sparkContext().addSparkListener(stages);
    TrainingResult<long[]> run;
    long called = System.currentTimeMillis();
    try {
      Dataset<Row> df =
          spark
              .read()
              .format("stoker")
              .option("batchSize", config.batchSize())
              .option("worldSize", config.ranks())
              .option("shuffle", true)
              .option("seed", DeviceBench.SEED)
              .option("dropLast", true)
              .option("verifyChecksums", System.getProperty(StokerRead.VERIFY_CHECKSUMS, "true"))
              .load(data);
      run =
          StokerSpark.on(df)
              .tensor("image", DType.FLOAT32, config.elements())
              .scalar("label", DType.INT32)
              .options(options(config))
              .worldSize(config.ranks())
              .devices(devices)
              .run(new TrainingStep());
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not empty", e);
    } finally {
      spark.sparkContext().removeSparkListener(stages);
    }
    List<long[]> ranks = new ArrayList<>(run.results());
    long firstBatch = Long.MIN_VALUE;
    for (long[] rank : ranks) {
      firstBatch = Math.max(firstBatch, rank[3]);
    }
    return new Run(
        BatchCount.sum(ranks),
        stages.secondsToFirstBatch(firstBatch),
        (firstBatch - called) / 1e3,
        run.report().rank(0).device());
  }

  private static LoaderOptions options(DeviceBench.Config config) {
    LoaderOptions.Builder b =
        LoaderOptions.builder()
            .batchSize(config.batchSize())
            .shuffle(true)
            .seed(DeviceBench.SEED)
            .dropLast(true)
            .numWorkers(config.numWorkers());
    if (config.numWorkers() > 0) {
      b.prefetchFactor(4);
    }
    return b.build();
  }

  /**
   * A rank's epoch 0, consumed as a training step would. Returns rows, batches, a checksum, and
   * when the first batch came ({@link SparkIngestBench#firstBatch()}).
   */
  static final class TrainingStep implements RankFunction<long[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public long[] run(RankContext rank, DataLoader loader) throws InterruptedException {
      long rows = 0;
      long batches = 0;
      long firstBatch = 0;
      double touched = 0;
      try (BatchIterator epoch = loader.epoch(0).iterator()) {
        while (epoch.hasNext()) {
          try (Batch batch = epoch.next()) {
            if (batches == 0) {
              firstBatch = SparkIngestBench.firstBatch();
            }
            touched += touch(batch);
            rows += batch.size();
            batches++;
          }
        }
      }
      return new long[] {rows, batches, (long) touched, firstBatch};
    }

    /**
     * On a GPU: waits until the batch's copy has landed (a step's stream would wait on the same
     * event) and reads its columns' addresses, which is all a step needs of them. On the CPU: the
     * label and the first image value of every row, as {@link StokerRead} touches its batches, so
     * that the JIT cannot drop the loads.
     */
    static double touch(Batch batch) throws InterruptedException {
      if (batch.onDevice()) {
        batch.deviceEvent().awaitOnHost();
        return (batch.deviceColumn("image").address() & 1)
            + (batch.deviceColumn("label").address() & 1);
      }
      ByteBuffer labels = batch.column("label");
      ByteBuffer images = batch.column("image");
      int rowBytes = images.limit() / batch.size();
      double sum = 0;
      for (int r = 0; r < batch.size(); r++) {
        sum += labels.getInt(r * Integer.BYTES) + images.getFloat(r * rowBytes);
      }
      return sum;
    }
  }
}
