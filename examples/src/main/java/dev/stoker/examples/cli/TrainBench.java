package dev.stoker.examples.cli;

import dev.stoker.examples.torch.TorchNatives;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code stoker bench --workload train}: samples/s of the demo's CNN training step fed by Stoker (a
 * Parquet table of 28x28 uint8 images read with {@code format("stoker")} through the runner,
 * normalized by the loader, wrapped as tensors without a copy) against the same step fed from
 * tensors already in memory, in the same stage on the same ranks ({@link TrainPass}); medians of
 * {@code --repeats}. Stoker keeps the step fed when it reaches 0.9 of the ceiling.
 */
final class TrainBench {
  static final String WORKLOAD = "train";

  /** Rows of the generated table unless --rows says otherwise: 50 steps a rank at 2 x 64. */
  static final int DEFAULT_ROWS = 6400;

  /** Stoker-fed over in-memory samples/s from which the step counts as kept fed. */
  static final double FED = 0.9;

  /**
   * The figures.
   *
   * @param stoker median samples/s over all ranks, fed by Stoker
   * @param ceiling median samples/s over all ranks, fed from memory
   */
  record Result(
      int ranks,
      int batchSize,
      int rows,
      int workers,
      int threads,
      double stoker,
      double ceiling,
      double[] stokerRuns,
      double[] ceilingRuns) {
    double ratio() {
      return stoker / ceiling;
    }

    String verdict() {
      return ratio() >= FED ? "compute-bound" : "input-bound";
    }

    String text() {
      return String.format(
          Locale.ROOT,
          "workload train: the demo's CNN step (PyTorch), %d ranks "
              + "x %d rows per batch, %d thread%s per rank, numWorkers %d%n"
              + "  fed by Stoker:        %,10.0f samples/s (runs %s)%n"
              + "  fed from memory:      %,10.0f samples/s (runs %s)%n"
              + "  ratio %.3f (kept fed at >= %.1f): %s%n",
          ranks,
          batchSize,
          threads,
          threads == 1 ? "" : "s",
          workers,
          stoker,
          rounded(stokerRuns),
          ceiling,
          rounded(ceilingRuns),
          ratio(),
          FED,
          verdict());
    }

    String json() {
      return String.format(
          Locale.ROOT,
          "{%n  \"workload\": \"train\",%n  \"ranks\": %d,%n"
              + "  \"batch_size\": %d,%n  \"rows\": %d,%n  \"workers\": %d,%n"
              + "  \"threads_per_rank\": %d,%n  \"stoker_samples_per_s\": %.1f,%n"
              + "  \"ceiling_samples_per_s\": %.1f,%n  \"ratio\": %.4f,%n"
              + "  \"verdict\": \"%s\",%n  \"stoker_runs\": %s,%n  \"ceiling_runs\": %s%n}%n",
          ranks,
          batchSize,
          rows,
          workers,
          threads,
          stoker,
          ceiling,
          ratio(),
          verdict(),
          rounded(stokerRuns),
          rounded(ceilingRuns));
    }

    private static String rounded(double[] runs) {
      return Arrays.toString(
          Arrays.stream(runs).map(Math::rint).mapToLong(d -> (long) d).toArray());
    }
  }

  private TrainBench() {}

  static Result run(int rows, int batchSize, int workers, int ranks, int repeats, PrintWriter err)
      throws IOException {
    TorchNatives.load().require();
    Path folder = Files.createTempDirectory("stoker-bench-train-");
    SparkSession spark =
        SparkSession.builder()
            .master("local[" + ranks + "]")
            .appName("stoker-bench-train")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", String.valueOf(ranks))
            .getOrCreate();
    try {
      Path table = folder.resolve("images");
      err.printf(Locale.ROOT, "stoker: writing %,d images of 28x28 as Parquet...%n", rows);
      err.flush();
      write(spark, table, rows);
      err.printf(
          Locale.ROOT,
          "stoker: %d repeats, each an epoch fed by Stoker, then as many "
              + "steps fed from memory%n",
          repeats);
      err.flush();
      TrainingResult<TrainPass.Times> run =
          StokerSpark.on(
                  spark
                      .read()
                      .format("stoker")
                      .option("batchSize", batchSize)
                      .option("worldSize", ranks)
                      .option("dropLast", true)
                      .load(table.toString()))
              .tensor("pixels", DType.UINT8, 1, 28, 28)
              .scalar("label", DType.INT64)
              .normalize("pixels", new double[] {0.5}, new double[] {0.29})
              .options(
                  LoaderOptions.builder()
                      .batchSize(batchSize)
                      .shuffle(true)
                      .seed(1)
                      .dropLast(true)
                      .numWorkers(workers)
                      .build())
              .worldSize(ranks)
              .run(new TrainPass(repeats));
      return summarize(run.results(), rows, batchSize, workers, repeats);
    } finally {
      spark.stop();
      delete(folder);
    }
  }

  private static void write(SparkSession spark, Path table, int rows) {
    SplittableRandom random = new SplittableRandom(7);
    List<Row> data = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      byte[] pixels = new byte[784];
      for (int p = 0; p < pixels.length; p++) {
        pixels[p] = (byte) random.nextInt(256);
      }
      data.add(RowFactory.create(pixels, (long) (i % 10)));
    }
    StructType schema =
        new StructType().add("pixels", DataTypes.BinaryType).add("label", DataTypes.LongType);
    spark.createDataFrame(data, schema).repartition(4).write().parquet(table.toString());
  }

  static Result summarize(
      List<TrainPass.Times> ranks, int rows, int batchSize, int workers, int repeats) {
    double[] stoker = new double[repeats];
    double[] ceiling = new double[repeats];
    for (int r = 0; r < repeats; r++) {
      long samples = 0;
      double stokerSeconds = 0;
      double ceilingSeconds = 0;
      for (TrainPass.Times rank : ranks) {
        samples += rank.samples()[r];
        stokerSeconds = Math.max(stokerSeconds, rank.stokerSeconds()[r]);
        ceilingSeconds = Math.max(ceilingSeconds, rank.ceilingSeconds()[r]);
      }
      stoker[r] = samples / stokerSeconds;
      ceiling[r] = samples / ceilingSeconds;
    }
    return new Result(
        ranks.size(),
        batchSize,
        rows,
        workers,
        ranks.get(0).threads(),
        median(stoker),
        median(ceiling),
        stoker,
        ceiling);
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static void delete(Path folder) throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
