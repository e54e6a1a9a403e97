package dev.stoker.tools.spark;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * Runs the {@code spark-source} benchmark on an embedded Spark ({@code local[ranks]}): writes
 * {@code rows} rows of {@code elements} floats and an int label as Parquet once, then reads them
 * into batches of {@code batchSize} rows per rank, {@code repeats} times each way after one
 * warm-up, alternating: through {@code format("stoker")} (shuffled, a new epoch every run) and
 * through {@link BaselineRead}.
 */
public final class SourceBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "spark-source";

  /** What to run. */
  public record Config(long rows, int elements, int ranks, int batchSize, int repeats) {
    public Config {
      if (elements <= 0 || ranks <= 0 || batchSize <= 0 || repeats <= 0) {
        throw new IllegalArgumentException(
            String.format(
                "elements %d, ranks %d, batchSize %d, " + "repeats %d (expected: each > 0)",
                elements, ranks, batchSize, repeats));
      }
      if (rows < (long) ranks * batchSize) {
        throw new IllegalArgumentException(
            "rows: "
                + rows
                + " (expected: at least ranks x "
                + "batchSize = "
                + (long) ranks * batchSize
                + ", for a full batch on every rank; "
                + "give more rows, or fewer ranks or a smaller batch)");
      }
    }

    /** What a read hands out per run: the same full batches on every rank (dropLast). */
    BatchCount expected() {
      long perRank = rows / ((long) ranks * batchSize);
      return new BatchCount(perRank * batchSize * ranks, perRank * ranks);
    }
  }

  private SourceBench() {}

  /** Runs the benchmark, telling each run on {@code progress}; the data lives in a temp folder. */
  public static SourceBenchResult run(Config config, PrintWriter progress) {
    Path dir = tempFolder("stoker-spark-source-");
    SparkSession spark = session(config.ranks(), WORKLOAD);
    try {
      String data = dir.resolve("data").toString();
      double writeSeconds = write(data, config.rows(), config.elements(), progress);
      List<Double> stoker = new ArrayList<>();
      List<Double> baseline = new ArrayList<>();
      BatchCount expected = null;
      for (int run = 0; run <= config.repeats(); run++) {
        String label = run == 0 ? "warm-up" : "run " + run + "/" + config.repeats();
        int epoch = run;
        Timed<BatchCount> s = time(() -> StokerRead.read(spark, data, config, epoch));
        Timed<BatchCount> b = time(() -> BaselineRead.read(spark, data, config));
        check(config, s.value(), b.value());
        expected = s.value();
        progress.printf(
            Locale.ROOT,
            "stoker: %-9s format(\"stoker\") %6.2f s, baseline %6.2f s%n",
            label,
            s.seconds(),
            b.seconds());
        progress.flush();
        if (run > 0) {
          stoker.add(s.seconds());
          baseline.add(b.seconds());
        }
      }
      return new SourceBenchResult(
          config, expected.rows(), expected.batches(), writeSeconds, stoker, baseline);
    } finally {
      spark.stop();
      delete(dir);
    }
  }

  static Path tempFolder(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "could not make a temporary folder "
              + prefix
              + "*: "
              + e.getMessage()
              + " (set java.io.tmpdir to a writable folder)",
          e);
    }
  }

  /** An embedded Spark of {@code ranks} threads, quiet, on the loopback address. */
  static SparkSession session(int ranks, String workload) {
    return session(ranks, workload, Map.of());
  }

  /** {@link #session(int, String)} with {@code conf} on top of the benchmark's settings. */
  static SparkSession session(int ranks, String workload, Map<String, String> conf) {
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[" + ranks + "]")
            .appName("stoker-bench-" + workload)
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", Integer.toString(ranks))
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1");
    conf.forEach(builder::config);
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  /** Writes the data, telling how long it took; returns the seconds. */
  static double write(String data, long rows, int elements, PrintWriter progress) {
    long started = System.nanoTime();
    BenchData.write(data, rows, elements);
    double seconds = (System.nanoTime() - started) / 1e9;
    progress.printf(
        Locale.ROOT,
        "stoker: wrote %,d rows of %d floats + label in %.1f s%n",
        rows,
        elements,
        seconds);
    progress.flush();
    return seconds;
  }

  /** Both ways must give every rank the same full batches. */
  private static void check(Config config, BatchCount stoker, BatchCount baseline) {
    BatchCount want = config.expected();
    if (!stoker.equals(want) || !baseline.equals(want)) {
      throw new IllegalStateException(
          "the reads disagree: format(\"stoker\") gave "
              + stoker
              + ", the baseline "
              + baseline
              + " (expected: "
              + want
              + ")");
    }
  }

  record Timed<T>(T value, double seconds) {}

  static <T> Timed<T> time(java.util.function.Supplier<T> work) {
    long started = System.nanoTime();
    T value = work.get();
    return new Timed<>(value, (System.nanoTime() - started) / 1e9);
  }

  static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      // a temp folder; the OS cleans it in the end
    }
  }

  static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
