package dev.stoker.tools.spark;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.RankReport;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Feeds one DataFrame ({@code rows} rows of a {@code width}-float tensor {@code image} and an int
 * {@code label}, written once as Parquet, one file per rank) into batches of {@code batchSize} on
 * {@code ranks} ranks of an embedded {@code local[ranks]} Spark, {@code epochs} times, through
 * Stoker ({@link StokerSpark}: each rank streams its planned row groups from the files into its
 * loader, writing its shard cache while the second epoch streams) and through the straightforward
 * user path ({@link RowBatches}, which reads the DataFrame again every epoch), in turns, {@code
 * repeats} times after one warm-up round. Stoker also runs its rows path (a filter over the scan,
 * {@code rebalance=always}: the one shuffle and the shard an input that cannot be streamed costs),
 * and times an epoch the shard cache serves on its own, after the measured ones.
 *
 * <p>Two clocks: the <em>work</em> figures time the ranks' or tasks' own work (rows into batches on
 * all ranks at once, from the first row read to the last batch; for Stoker, the slowest rank's
 * shard and first epoch plus every other stage of the run, such as the shuffle); the <em>wall</em>
 * figures time the whole call on the driver, Spark's scheduling included, and for Stoker the
 * barrier stage's synchronizations. A full collection before each pass keeps one pass from paying
 * for another's garbage.
 *
 * <p>The time to the first batch: from the submission of the ranks' stage (Spark's listener) to the
 * moment the slowest rank's {@code loader.epoch(0).iterator().next()} returned, both read from the
 * wall clock in milliseconds ({@code System.currentTimeMillis()}), which is one clock on {@code
 * local[N]}, where ranks and driver share a JVM; and the same moment from the call to {@code run}
 * on the driver, which adds the planning and any stage before the ranks'.
 */
public final class SparkIngestBench {
  /** The system property that sets the streamed run's {@code cache} option (default auto). */
  public static final String CACHE = "stoker.bench.cache";

  /** What to run. */
  public record Config(
      long rows, int width, int batchSize, int ranks, int epochs, int repeats, int numWorkers) {
    public Config {
      if (width <= 0 || batchSize <= 0 || ranks <= 0) {
        throw new IllegalArgumentException(
            String.format(
                "width %d, batchSize %d, ranks %d " + "(expected: each > 0)",
                width, batchSize, ranks));
      }
      if (rows < (long) ranks * batchSize) {
        throw new IllegalArgumentException(
            String.format(
                "rows: %d (expected: at least ranks x "
                    + "batchSize = %d, for a full batch on every rank; give more rows, or fewer ranks or "
                    + "a smaller batch)",
                rows, (long) ranks * batchSize));
      }
      if (epochs <= 0 || repeats <= 0 || numWorkers < 0) {
        throw new IllegalArgumentException(
            String.format(
                "epochs %d, repeats %d, numWorkers %d "
                    + "(expected: epochs and repeats > 0, numWorkers >= 0)",
                epochs, repeats, numWorkers));
      }
    }

    /** 200,000 rows of 784 floats and a label, batches of 64, 2 ranks, one epoch, 5 repeats. */
    public static Config standard() {
      return new Config(200_000, 784, 64, 2, 1, 5, 0);
    }
  }

  private final Config config;
  private final Consumer<String> progress;

  public SparkIngestBench(Config config, Consumer<String> progress) {
    this.config = config;
    this.progress = progress;
  }

  /** Runs the benchmark in a session of its own, in a temporary folder it removes. */
  public SparkIngestResult run() {
    Path folder;
    try {
      folder = Files.createTempDirectory("stoker-spark-bench");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    SparkSession spark =
        SparkSession.builder()
            .master("local[" + config.ranks() + "]")
            .appName("stoker-bench")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", Integer.toString(config.ranks()))
            .config("spark.sql.files.maxPartitionBytes", "2g")
            .config("spark.local.dir", folder.resolve("spark").toString())
            .getOrCreate();
    try {
      Dataset<Row> input = write(spark, folder.resolve("data.parquet"));
      return measure(spark, input, bytes(folder.resolve("data.parquet")));
    } finally {
      spark.stop();
      delete(folder);
    }
  }

  private Dataset<Row> write(SparkSession spark, Path parquet) {
    progress.accept(
        String.format(
            "writing %,d rows of %d floats and a label as Parquet...",
            config.rows(), config.width()));
    spark
        .range(0, config.rows(), 1, config.ranks())
        .select(
            functions.col("id").mod(10).cast("int").as("label"),
            functions
                .expr(
                    "transform(sequence(0, "
                        + (config.width() - 1)
                        + "), e -> cast(hash(id, e) "
                        + "/ 2147483648D as float))")
                .as("image"))
        .write()
        .parquet(parquet.toString());
    return spark.read().parquet(parquet.toString());
  }

  private SparkIngestResult measure(SparkSession spark, Dataset<Row> input, long parquetBytes) {
    int rounds = config.repeats() + 1;
    double[][] figures = new double[9][config.repeats()];
    for (int round = 0; round < rounds; round++) {
      String label = round == 0 ? "warm-up" : "round " + round + "/" + config.repeats();
      startOnAnEmptyHeap();
      double[] baseline = baseline(input);
      startOnAnEmptyHeap();
      double[] stoker = stoker(input, false);
      startOnAnEmptyHeap();
      double[] shuffled = stoker(input, true);
      progress.accept(
          String.format(
              "%s: stoker %,.0f rows/s (wall %,.0f), baseline %,.0f rows/s "
                  + "(wall %,.0f), stoker shuffled %,.0f rows/s, cached epoch %,.0f rows/s, first "
                  + "batch %.2f s",
              label,
              stoker[0],
              stoker[1],
              baseline[0],
              baseline[1],
              shuffled[0],
              stoker[2],
              stoker[3]));
      if (round > 0) {
        figures[0][round - 1] = stoker[0];
        figures[1][round - 1] = stoker[1];
        figures[2][round - 1] = baseline[0];
        figures[3][round - 1] = baseline[1];
        figures[4][round - 1] = shuffled[0];
        figures[5][round - 1] = stoker[2];
        figures[6][round - 1] = stoker[3];
        figures[7][round - 1] = stoker[4];
        figures[8][round - 1] = stoker[5];
      }
    }
    return new SparkIngestResult(
        config,
        spark.version(),
        input.rdd().getNumPartitions(),
        parquetBytes,
        figures[0],
        figures[1],
        figures[2],
        figures[3],
        figures[4],
        figures[5],
        figures[6],
        figures[7],
        figures[8]);
  }

  /**
   * A full collection before each pass, so that no pass pays for the garbage the one before left
   * (the baseline's boxed floats, Spark's own).
   */
  private static void startOnAnEmptyHeap() {
    System.gc();
  }

  /**
   * Rows/s of the tasks' work and of the wall clock, over {@code epochs} passes: each pass reads
   * the DataFrame again, as the straightforward path does every epoch.
   */
  private double[] baseline(Dataset<Row> input) {
    long rows = 0;
    double work = 0;
    long start = System.nanoTime();
    for (int epoch = 0; epoch < config.epochs(); epoch++) {
      List<long[]> tasks =
          input
              .javaRDD()
              .mapPartitions(new RowBatches(config.batchSize(), config.width()))
              .collect();
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (long[] task : tasks) {
        rows += task[0];
        first = Math.min(first, task[1]);
        last = Math.max(last, task[2]);
      }
      work += (last - first) / 1e9;
    }
    double wall = (System.nanoTime() - start) / 1e9;
    return new double[] {rows / work, rows / wall};
  }

  /**
   * Rows/s of the ranks' work and of the wall clock over {@code epochs} epochs, of an epoch served
   * from the shard cache (timed apart after them, left out of the other two, as is the epoch that
   * writes the cache when {@code epochs} is 1), the seconds to the first batch (see {@link
   * #firstBatch}) from the ranks' stage and from the call, and the whole call's seconds.
   */
  private double[] stoker(Dataset<Row> input, boolean shuffled) {
    StageClock stages = new StageClock();
    SparkSession spark = input.sparkSession();
    spark.sparkContext().addSparkListener(stages);
    int epochs = config.epochs();
    TrainingResult<long[]> run;
    long wall;
    long called = System.currentTimeMillis();
    long start = System.nanoTime();
    try {
      // The shuffled run goes the rows path: a filter over the scan keeps the runner from
      // streaming the files, and rebalance=always has its rows shuffled once to the ranks.
      run =
          StokerSpark.on(shuffled ? input.where("label >= 0") : input)
              .tensor("image", DType.FLOAT32, config.width())
              .scalar("label", DType.INT32)
              .options(options())
              .option("rebalance", shuffled ? "always" : "auto")
              // what verifying page checksums costs: -Dstoker.bench.verifyChecksums=false turns it
              // off
              .option("verifyChecksums", System.getProperty(StokerRead.VERIFY_CHECKSUMS, "true"))
              // the shard cache of a streamed run: -Dstoker.bench.cache=none|disk|auto
              .option("cache", System.getProperty(CACHE, "auto"))
              // with more than one measured epoch, the runner is told how many its function runs
              // (the measured ones and those after them); with one, it is not told, so that the
              // measured epoch writes no cache
              .option("epochs", Integer.toString(epochs > 1 ? epochs + 1 : 0))
              .worldSize(config.ranks())
              .run((rank, loader) -> epochs(loader, epochs));
      wall = System.nanoTime() - start;
      waitForListeners(spark);
    } finally {
      spark.sparkContext().removeSparkListener(stages);
    }
    long rows = 0;
    double ranks = 0;
    double extra = 0;
    double cached = 0;
    long firstBatch = Long.MIN_VALUE;
    boolean streamed = run.report().streamed();
    for (int r = 0; r < config.ranks(); r++) {
      long[] seen = run.result(r);
      RankReport report = run.report().rank(r);
      rows += seen[0];
      // A streamed rank writes its cache, if at all, inside an epoch, whose time counts it.
      ranks = Math.max(ranks, (streamed ? 0 : report.shardSeconds()) + seen[1] / 1e9);
      extra = Math.max(extra, seen[2] / 1e9);
      cached = Math.max(cached, seen[4] / 1e9);
      firstBatch = Math.max(firstBatch, seen[3]);
    }
    double work = stages.seconds() + ranks;
    double epochsWall = wall / 1e9 - extra;
    return new double[] {
      rows / work,
      rows / epochsWall,
      rows / epochs / cached,
      stages.secondsToFirstBatch(firstBatch),
      (firstBatch - called) / 1e3,
      wall / 1e9
    };
  }

  /**
   * A rank's part: {@code epochs} epochs, then more timed apart until one comes from the shard
   * cache (a streamed rank writes it, by default, while its second epoch streams). Returns rows of
   * the epochs, their nanoseconds, the extra epochs' nanoseconds, {@link #firstBatch} of epoch 0,
   * and the nanoseconds of the last extra epoch, which the cache served.
   */
  private static long[] epochs(DataLoader loader, int epochs) {
    long[] seen = new long[5];
    double checksum = 0;
    int extra = epochs < 2 ? 2 : 1;
    for (int epoch = 0; epoch < epochs + extra; epoch++) {
      long begin = System.nanoTime();
      long rows = 0;
      Iterator<Batch> batches = loader.epoch(epoch).iterator();
      while (batches.hasNext()) {
        Batch batch = batches.next();
        if (epoch == 0 && rows == 0) {
          seen[3] = firstBatch();
        }
        checksum += batch.getFloat(0, 0, 0) + batch.getInt(1, 0, 0);
        rows += batch.size();
      }
      long nanos = System.nanoTime() - begin + (checksum == -1 ? 1 : 0);
      seen[epoch < epochs ? 0 : 2] += epoch < epochs ? rows : nanos;
      seen[1] += epoch < epochs ? nanos : 0;
      seen[4] = nanos;
    }
    return seen;
  }

  /**
   * When a rank got its first batch: {@code System.currentTimeMillis()}, read as soon as {@code
   * loader.epoch(0).iterator().next()} returns. The wall clock, not {@code nanoTime}, so that it
   * compares with Spark's stage submission time (see {@link StageClock}).
   */
  static long firstBatch() {
    return System.currentTimeMillis();
  }

  /** Lets the listener bus deliver the run's last stage events. */
  private static void waitForListeners(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not empty", e);
    }
  }

  private LoaderOptions options() {
    LoaderOptions.Builder b =
        LoaderOptions.builder()
            .batchSize(config.batchSize())
            .shuffle(true)
            .seed(42)
            .dropLast(true)
            .numWorkers(config.numWorkers());
    if (config.numWorkers() > 0) {
      b.prefetchFactor(4).persistentWorkers(true);
    }
    return b.build();
  }

  private static long bytes(Path folder) {
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path folder) {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path path : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not remove " + folder, e);
    }
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }
}
