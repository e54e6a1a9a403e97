package dev.stoker.tools.spark;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.source.StoreCounts;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * Runs the {@code object-store} benchmark: the {@code spark-source} data as objects of a real S3
 * server ({@link S3Server}) reached through Hadoop's s3a, behind a link shaped like a cloud region
 * (or on the loopback for {@code rttMs} 0), read by {@code ranks} ranks on {@code local[ranks]},
 * one epoch a run, alternating: {@code format("stoker")} and Spark's own Parquet reader ({@link
 * BaselineRead}). It counts the requests the server served, the time to the first batch, and, with
 * the runner's shard cache ({@code cache=auto}, two epochs), the requests of the second epoch.
 */
public final class ObjectStoreBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "object-store";

  /** The round trip of a cloud region's object store. */
  public static final double DEFAULT_RTT_MS = 20;

  /** The link's rate: 1 Gbit/s, what one stream from an object store commonly gets. */
  public static final double DEFAULT_LINK_GB_S = 0.125;

  /** Floats per row, as the spark-source workload (28 x 28). */
  static final int WIDTH = 784;

  /** The server of the run in flight, which the ranks (in this JVM) ask for its count. */
  private static volatile S3Server active;

  /** What to run. */
  public record Config(
      long rows, int ranks, int batchSize, int repeats, double rttMs, double linkGbS) {
    public Config {
      if (ranks <= 0 || batchSize <= 0 || repeats <= 0 || rttMs < 0 || linkGbS < 0) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "ranks %d, batchSize %d, repeats %d, rtt %.1f ms, link %.3f GB/s (expected: "
                    + "ranks, batchSize and repeats > 0, rtt and link >= 0)",
                ranks,
                batchSize,
                repeats,
                rttMs,
                linkGbS));
      }
      if (rows < (long) ranks * batchSize) {
        throw new IllegalArgumentException(
            "rows: "
                + rows
                + " (expected: at least ranks x batchSize = "
                + (long) ranks * batchSize
                + ")");
      }
    }

    /** Whether the link is shaped (in a namespace), or the server is on the loopback. */
    boolean shaped() {
      return rttMs > 0 || linkGbS > 0;
    }

    SourceBench.Config source() {
      return new SourceBench.Config(rows, WIDTH, ranks, batchSize, repeats);
    }
  }

  /** One run of one read: its seconds, the server's object reads, and the bytes Stoker read. */
  record Run(double seconds, long requests, long bytes, double firstBatchSeconds) {}

  private ObjectStoreBench() {}

  /** Runs the benchmark, telling each run on {@code progress}. */
  public static ObjectStoreBenchResult run(Config config, PrintWriter progress) {
    if (config.linkGbS() > 0 && S3Server.cannotShape() != null) {
      throw new IllegalStateException(S3Server.cannotShape());
    }
    try (S3Server server = S3Server.start(S3Server.binary(), config.rttMs(), config.linkGbS())) {
      active = server;
      SparkSession spark = session(config.ranks(), server.hadoopConf());
      try {
        String data = server.path("data");
        long started = System.nanoTime();
        Configuration conf = spark.sparkContext().hadoopConfiguration();
        BenchData.write(data, config.rows(), WIDTH, conf);
        progress.printf(
            Locale.ROOT,
            "stoker: wrote %,d rows to %s in %.1f s%n",
            config.rows(),
            data,
            (System.nanoTime() - started) / 1e9);
        if (config.shaped()) {
          server.shape(config.rttMs(), config.linkGbS());
          progress.printf(
              Locale.ROOT,
              "stoker: the link shaped to %.1f ms round trip, %s%n",
              config.rttMs(),
              config.linkGbS() > 0
                  ? String.format(Locale.ROOT, "%.3f GB/s", config.linkGbS())
                  : "no rate limit");
        }
        progress.flush();
        List<Run> stoker = new ArrayList<>();
        List<Run> baseline = new ArrayList<>();
        for (int run = 0; run <= config.repeats(); run++) {
          int epoch = run;
          Run s = measure(server, () -> StokerRead.read(spark, data, config.source(), epoch));
          Run b = measure(server, () -> BaselineRead.read(spark, data, config.source()));
          progress.printf(
              Locale.ROOT,
              "stoker: %-9s format(\"stoker\") %6.2f s (%d requests, first batch %.2f s), "
                  + "Spark %6.2f s (%d requests)%n",
              run == 0 ? "warm-up" : "run " + run + "/" + config.repeats(),
              s.seconds(),
              s.requests(),
              s.firstBatchSeconds(),
              b.seconds(),
              b.requests());
          progress.flush();
          if (run > 0) {
            stoker.add(s);
            baseline.add(b);
          }
        }
        long epoch2 = cachedEpochRequests(spark, data, config);
        progress.printf(Locale.ROOT, "stoker: the cached second epoch made %d requests%n", epoch2);
        return new ObjectStoreBenchResult(
            config, config.source().expected().rows(), stoker, baseline, epoch2);
      } finally {
        spark.stop();
        active = null;
      }
    }
  }

  private static SparkSession session(int ranks, Map<String, String> s3) {
    Map<String, String> conf = new HashMap<>();
    s3.forEach((key, value) -> conf.put("spark.hadoop." + key, value));
    return SourceBench.session(ranks, WORKLOAD, conf);
  }

  private static Run measure(S3Server server, java.util.function.Supplier<BatchCount> read) {
    long gets = server.objectGets();
    StoreCounts before = StoreCounts.now();
    StokerRead.markStart();
    long started = System.nanoTime();
    BatchCount count = read.get();
    double seconds = (System.nanoTime() - started) / 1e9;
    long first = StokerRead.firstBatchNanos();
    if (count.rows() <= 0) {
      throw new IllegalStateException("a read gave no rows: " + count);
    }
    return new Run(
        seconds,
        server.objectGets() - gets,
        StoreCounts.now().since(before).bytes(),
        first == 0 ? Double.NaN : (first - started) / 1e9);
  }

  /**
   * The server's object reads during the second of two epochs of the runner over the objects, its
   * shard cache on ({@code cache=auto}, told the epochs): the first epoch streams them and writes
   * the cache, the second reads the cache.
   */
  private static long cachedEpochRequests(SparkSession spark, String data, Config config) {
    TrainingResult<Long> run =
        StokerSpark.on(spark.read().parquet(data))
            .tensor("image", DType.FLOAT32, WIDTH)
            .scalar("label", DType.INT32)
            .options(
                LoaderOptions.builder()
                    .batchSize(config.batchSize())
                    .shuffle(true)
                    .seed(1)
                    .dropLast(true)
                    .build())
            .option("cache", "auto")
            .option("epochs", "2")
            .worldSize(config.ranks())
            .run(
                (rank, loader) -> {
                  drain(loader.epoch(0).iterator());
                  rank.barrier();
                  long before = rank.rank() == 0 ? active.objectGets() : 0;
                  drain(loader.epoch(1).iterator());
                  rank.barrier();
                  return rank.rank() == 0 ? active.objectGets() - before : 0L;
                });
    return run.result(0);
  }

  private static void drain(Iterator<Batch> batches) {
    while (batches.hasNext()) {
      batches.next();
    }
  }
}
