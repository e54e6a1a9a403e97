package dev.stoker.tools.spark;

import dev.stoker.spark.DeviceFactory;
import dev.stoker.tools.spark.SourceBench.Timed;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;

/**
 * Runs the {@code spark-device} benchmark on an embedded Spark ({@code local[ranks]}): writes the
 * data of {@link SourceBench} as Parquet once, then, {@code repeats} times after one warm-up round,
 * in turns (which goes first alternates), reads it with {@code format("stoker")} and
 *
 * <ul>
 *   <li>runs it through {@link dev.stoker.spark.StokerSpark} into one loader per rank with the
 *       rank's device, consumed as a training step would ({@link DeviceRead}); and
 *   <li>reads it alone, each rank's columnar batches as Spark hands them out ({@link StokerRead},
 *       as {@code --workload spark-source} reads it).
 * </ul>
 *
 * Both are timed on the driver from the read's {@code load} to the end of the Spark job, a full
 * collection before each. The device path also times its first batch (see {@link StageClock}).
 *
 * <p>Devices come from the {@link DeviceFactory} given, called for a rank whose task Spark gave a
 * GPU. The command line passes {@link DeviceFactory#CPU}; on a GPU machine, where Spark schedules
 * GPUs (a cluster with {@code spark.executor.resource.gpu.*}), loader-core's CUDA device is {@code
 * CudaDevice::forAddress}. On {@code local[N]} Spark gives tasks no GPU, so the ranks deliver to
 * the CPU whatever the factory.
 */
public final class DeviceBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "spark-device";

  static final long SEED = 1;

  /** What to run: {@link SourceBench.Config}'s data and reads, and the loaders' workers. */
  public record Config(
      long rows, int elements, int ranks, int batchSize, int repeats, int numWorkers) {
    public Config {
      new SourceBench.Config(rows, elements, ranks, batchSize, repeats); // checks them
      if (numWorkers < 0) {
        throw new IllegalArgumentException("numWorkers: " + numWorkers + " (expected: >= 0)");
      }
    }

    SourceBench.Config read() {
      return new SourceBench.Config(rows, elements, ranks, batchSize, repeats);
    }
  }

  private DeviceBench() {}

  /** Runs the benchmark, telling each run on {@code progress}; the data lives in a temp folder. */
  public static DeviceBenchResult run(Config config, DeviceFactory devices, PrintWriter progress) {
    Path dir = SourceBench.tempFolder("stoker-spark-device-");
    SparkSession spark = SourceBench.session(config.ranks(), WORKLOAD);
    try {
      String data = dir.resolve("data").toString();
      double writeSeconds = SourceBench.write(data, config.rows(), config.elements(), progress);
      Figures figures = new Figures();
      String device = null;
      for (int run = 0; run <= config.repeats(); run++) {
        int epoch = run;
        Timed<DeviceRead.Run> d = null;
        Timed<BatchCount> r = null;
        for (int turn = 0; turn < 2; turn++) {
          System.gc(); // no pass pays for the garbage of the one before
          if ((turn + run) % 2 == 0) {
            d = SourceBench.time(() -> DeviceRead.read(spark, data, config, devices));
          } else {
            r = SourceBench.time(() -> StokerRead.read(spark, data, config.read(), epoch));
          }
        }
        check(config, d.value().count(), r.value());
        device = d.value().device();
        progress.printf(
            Locale.ROOT,
            "stoker: %-9s device path %6.2f s (first batch %.3f s), "
                + "format(\"stoker\") read alone %6.2f s%n",
            run == 0 ? "warm-up" : "run " + run + "/" + config.repeats(),
            d.seconds(),
            d.value().firstBatchSeconds(),
            r.seconds());
        progress.flush();
        if (run > 0) {
          figures.add(d, r);
        }
      }
      BatchCount expected = config.read().expected();
      return new DeviceBenchResult(
          config,
          device,
          spark.version(),
          expected.rows(),
          expected.batches(),
          writeSeconds,
          figures.device,
          figures.read,
          figures.firstBatch,
          figures.firstBatchFromCall);
    } finally {
      spark.stop();
      SourceBench.delete(dir);
    }
  }

  /** Both paths must give every rank the same full batches. */
  private static void check(Config config, BatchCount device, BatchCount read) {
    BatchCount want = config.read().expected();
    if (!device.equals(want) || !read.equals(want)) {
      throw new IllegalStateException(
          "the paths disagree: the device path gave "
              + device
              + ", the read alone "
              + read
              + " (expected: "
              + want
              + ")");
    }
  }

  private static final class Figures {
    final List<Double> device = new ArrayList<>();
    final List<Double> read = new ArrayList<>();
    final List<Double> firstBatch = new ArrayList<>();
    final List<Double> firstBatchFromCall = new ArrayList<>();

    void add(Timed<DeviceRead.Run> d, Timed<BatchCount> r) {
      device.add(d.seconds());
      read.add(r.seconds());
      firstBatch.add(d.value().firstBatchSeconds());
      firstBatchFromCall.add(d.value().firstBatchFromCallSeconds());
    }
  }
}
