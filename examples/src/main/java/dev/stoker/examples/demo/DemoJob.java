package dev.stoker.examples.demo;

import dev.stoker.examples.JobEnd;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.LoadReport;
import dev.stoker.spark.RankReport;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.StokerUiPage;
import dev.stoker.spark.TrainingResult;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import picocli.CommandLine;

/**
 * The main job: Fashion-MNIST found or fetched, written once as Parquet, its pixel statistics
 * computed with Stoker over the ranks, and a small CNN in PyTorch (or an MLP in plain Java) trained
 * data-parallel over them, one Spark barrier stage per epoch, read through {@code format("stoker")}
 * and normalized by the loader. Prints per epoch the loss, the test accuracy, samples/s, the
 * bottleneck verdict and the rows dropped per rank, and writes a plot and a JSON summary.
 *
 * <p>{@link #main} is the class to give {@code spark-submit}: it takes the session (and its master)
 * that spark-submit sets up; {@code bin/stoker demo} runs {@link #run} on an embedded {@code
 * local[2]}.
 */
public final class DemoJob {
  private static final int[] SWEEP_WORKERS = {0, 1, 2};

  private final SparkSession spark;
  private final DemoOptions options;
  private final PrintStream out;
  private final PrintStream err;

  /**
   * @param out where the figures go
   * @param err where the progress bar goes
   */
  public DemoJob(SparkSession spark, DemoOptions options, PrintStream out, PrintStream err) {
    this.spark = spark;
    this.options = options;
    this.out = out;
    this.err = err;
  }

  /** Runs the job: data, statistics, training, evaluation, plot and summary. */
  public DemoSummary run() throws IOException, InterruptedException {
    options.check();
    long begin = System.nanoTime();
    int ranks = options.ranks;
    DemoModel model = DemoModel.open(options, out);
    out.printf(
        Locale.ROOT,
        "stoker demo: Fashion-MNIST%s, %s, %d ranks x %d rows per batch, %d "
            + "epoch%s, Spark master %s%n",
        options.images ? " as PNG" : "",
        model.description(),
        ranks,
        options.batchSize,
        options.epochs,
        options.epochs == 1 ? "" : "s",
        spark.sparkContext().master());
    out.println("Stoker page: " + StokerUiPage.address(spark).orElse("none (no Spark UI)"));
    FashionMnist.Files4 files =
        FashionMnist.locate(options.data, options.cache, options.installDataset, out);
    String tables =
        options.trainRows > 0
            ? "fashion-mnist-parquet-" + options.trainRows
            : "fashion-mnist-parquet";
    ParquetCache.Tables data =
        ParquetCache.open(spark, files, options.trainRows, options.cache.resolve(tables), out);

    PixelStats.Result stats = PixelStats.compute(spark, data.train(), ranks, options.seed);
    out.printf(
        Locale.ROOT,
        "normalization (Stoker, %d ranks): mean %.4f, std %.4f over %d "
            + "training images, %.0f samples/s (%.1f s)%n",
        ranks,
        stats.mean()[0],
        stats.std()[0],
        stats.rows(),
        stats.samplesPerSecond(),
        stats.seconds());

    Path png =
        options.images ? PngTable.open(spark, data, options.cache.resolve(tables), out) : null;
    String transforms = options.images ? transforms(stats) : null;
    if (transforms != null) {
      out.println("images: PNG bytes read with transforms=" + transforms);
    }
    TestSet test = TestSet.read(spark, data.test(), stats.mean()[0], stats.std()[0]);
    List<DemoSummary.Epoch> epochs = new ArrayList<>();
    for (int epoch = 0; epoch < options.epochs; epoch++) {
      long started = System.nanoTime();
      TrainingResult<? extends DemoModel.Outcome> run =
          options.images
              ? trainImagesEpoch(png, transforms, data.trainRows(), model, epoch)
              : trainEpoch(data, stats, model, epoch);
      model.update(run.results());
      DemoSummary.Epoch line =
          summarize(
              epoch,
              run,
              data.trainRows(),
              model.accuracy(test),
              (System.nanoTime() - started) / 1e9);
      epochs.add(line);
      if (epoch == 0) {
        out.println("ranks: " + placement(run.report()));
      }
      out.println(line.text(options.epochs));
      if (!model.lastEpochNote().isEmpty()) {
        out.println("  " + model.lastEpochNote());
      }
      out.flush();
    }

    Map<String, Double> throughput = new LinkedHashMap<>();
    throughput.put("stats (1w)", stats.samplesPerSecond());
    throughput.put(
        "train (1w)",
        epochs.stream().mapToDouble(DemoSummary.Epoch::samplesPerSecond).average().orElse(0));
    if (!options.noSweep) {
      for (int workers : SWEEP_WORKERS) {
        double rate =
            options.images ? imagesReadPass(png, transforms, workers) : readPass(data, workers);
        throughput.put("read (" + workers + "w)", rate);
        out.printf(
            Locale.ROOT,
            "loader configuration: format(\"stoker\") read, %d ranks, "
                + "numWorkers %d: %.0f samples/s%n",
            ranks,
            workers,
            rate);
      }
    }
    Files.createDirectories(options.out);
    Path plot = options.out.resolve("stoker-demo.png");
    TrainingPlot.write(
        plot,
        epochs.stream()
            .map(e -> new TrainingPlot.Epoch(e.epoch(), e.loss(), e.accuracy()))
            .toList(),
        throughput);
    DemoSummary summary =
        new DemoSummary(
            options,
            spark.sparkContext().master(),
            stats.mean(),
            stats.std(),
            epochs,
            throughput,
            (System.nanoTime() - begin) / 1e9);
    Path json = options.out.resolve("stoker-demo.json");
    Files.writeString(json, summary.json());
    out.println("plot: " + plot.toAbsolutePath());
    out.println("summary: " + json.toAbsolutePath());
    out.printf(
        Locale.ROOT,
        "done: test accuracy %.4f after %d epoch%s, %.1f s%s%n",
        summary.finalAccuracy(),
        options.epochs,
        options.epochs == 1 ? "" : "s",
        summary.wallSeconds(),
        model.closingNote());
    return summary;
  }

  private TrainingResult<? extends DemoModel.Outcome> trainEpoch(
      ParquetCache.Tables data, PixelStats.Result stats, DemoModel model, int epoch) {
    int ranks = options.ranks;
    long expected = (data.trainRows() / ((long) ranks * options.batchSize)) * ranks;
    ProgressLine bar =
        new ProgressLine(err, String.format("epoch %d/%d", epoch + 1, options.epochs), expected);
    try {
      return StokerSpark.on(
              DemoReads.table(
                  spark, data.train(), options.batchSize, ranks, options.seed, epoch, true))
          .tensor("pixels", DType.UINT8, 1, 28, 28)
          .scalar("label", DType.INT64)
          .normalize("pixels", stats.mean(), stats.std())
          .options(loaderOptions(1, true))
          .worldSize(ranks)
          .onProgress(bar)
          .run(model.epoch(epoch));
    } finally {
      bar.clear();
    }
  }

  /**
   * The augmentation of {@code --images}: decode the PNG, pad by 4, crop 28x28 at random, flip at
   * random, normalize with the training pixels' statistics (those the raw test images get).
   */
  static String transforms(PixelStats.Result stats) {
    return "decode(gray)|pad(4)|randomCrop(28)|hflip|normalize(mean="
        + stats.mean()[0]
        + ",std="
        + stats.std()[0]
        + ")";
  }

  /**
   * One epoch of {@code --images}: the PNG table through {@code transforms} in the loader's workers
   * (float32 [1,28,28], already normalized), the same model step as the raw pixels'.
   */
  private TrainingResult<? extends DemoModel.Outcome> trainImagesEpoch(
      Path png, String transforms, long rows, DemoModel model, int epoch) {
    int ranks = options.ranks;
    long expected = (rows / ((long) ranks * options.batchSize)) * ranks;
    ProgressLine bar =
        new ProgressLine(err, String.format("epoch %d/%d", epoch + 1, options.epochs), expected);
    try {
      return StokerSpark.on(
              DemoReads.reader(spark, options.batchSize, ranks, options.seed, epoch, true)
                  .option("transforms", transforms)
                  .load(png.toString())
                  .select("pixels", "label"))
          .tensor("pixels", DType.FLOAT32, 1, 28, 28)
          .scalar("label", DType.INT32) // as stored: the transform passes it through
          .options(loaderOptions(1, true))
          .worldSize(ranks)
          .onProgress(bar)
          .run(model.epoch(epoch));
    } finally {
      bar.clear();
    }
  }

  /**
   * Samples/s of one pass of {@code format("stoker")} over the PNG table through the transforms.
   */
  private double imagesReadPass(Path png, String transforms, int workers) {
    long begin = System.nanoTime();
    Row floats =
        DemoReads.reader(spark, options.batchSize, options.ranks, options.seed, 0, true)
            .option("numWorkers", workers)
            .option("transforms", transforms)
            .load(png.toString())
            .agg(functions.sum(functions.size(functions.col("pixels"))))
            .first();
    double seconds = (System.nanoTime() - begin) / 1e9;
    return floats.getLong(0) / 784.0 / seconds;
  }

  /**
   * Samples/s of one pass of {@code format("stoker")} over the training table with {@code workers}
   * loader workers per rank: the read alone, every pixel column decoded.
   */
  private double readPass(ParquetCache.Tables data, int workers) {
    long begin = System.nanoTime();
    Row bytes =
        DemoReads.reader(spark, options.batchSize, options.ranks, options.seed, 0, true)
            .option("numWorkers", workers)
            .load(data.train().toString())
            .agg(functions.sum(functions.length(functions.col("pixels"))))
            .first();
    double seconds = (System.nanoTime() - begin) / 1e9;
    return bytes.getLong(0) / 784.0 / seconds;
  }

  /** Where each rank ran: its executor and, where Spark schedules GPUs, its GPU. */
  private static String placement(LoadReport report) {
    List<String> ranks = new ArrayList<>();
    for (RankReport rank : report.ranks()) {
      ranks.add(
          String.format(
              "rank %d on executor %s, device %s%s",
              rank.rank(),
              rank.executorId(),
              rank.device(),
              rank.gpuAddress() == null ? "" : " (gpu " + rank.gpuAddress() + ")"));
    }
    return String.join("; ", ranks);
  }

  private LoaderOptions loaderOptions(int workers, boolean shuffle) {
    return LoaderOptions.builder()
        .batchSize(options.batchSize)
        .shuffle(shuffle)
        .seed(options.seed)
        .dropLast(true)
        .numWorkers(workers)
        .build();
  }

  private static DemoSummary.Epoch summarize(
      int epoch,
      TrainingResult<? extends DemoModel.Outcome> run,
      long rows,
      double accuracy,
      double seconds) {
    double loss = 0;
    long batches = 0;
    for (DemoModel.Outcome outcome : run.results()) {
      loss += outcome.lossSum();
      batches += outcome.batches();
    }
    LoadReport report = run.report();
    List<Long> dropped = report.ranks().stream().map(RankReport::droppedRows).toList();
    double rate = report.ranks().stream().mapToDouble(RankReport::samplesPerSecond).sum();
    // the read's plan leaves out the tail of the epoch's order; each rank's loader drops the rest
    long droppedAtRead =
        rows
            - report.rows()
            + report.droppedRows()
            - dropped.stream().mapToLong(Long::longValue).sum();
    return new DemoSummary.Epoch(
        epoch + 1,
        loss / Math.max(batches, 1),
        accuracy,
        rate,
        report.rank(0).verdict(),
        droppedAtRead,
        dropped,
        seconds);
  }

  /**
   * The job for {@code spark-submit}: the session comes from spark-submit's settings (its master
   * included); run with plain {@code java}, it falls back to {@code local[ranks]}.
   */
  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    DemoOptions options = new DemoOptions();
    CommandLine line = new CommandLine(options).setCommandName("DemoJob");
    try {
      line.parseArgs(args);
      if (line.isUsageHelpRequested()) {
        line.usage(System.out);
        return;
      }
      options.check();
    } catch (CommandLine.ParameterException | IllegalArgumentException e) {
      System.err.println("DemoJob: " + e.getMessage());
      System.exit(2);
    }
    SparkSession.Builder builder = SparkSession.builder().appName("stoker-demo");
    SparkConf given = new SparkConf();
    if (!given.contains("spark.master")) {
      builder.master("local[" + Math.max(2, options.ranks) + "]");
    }
    if (!given.contains("spark.executor.heartbeatInterval")) {
      builder.config("spark.executor.heartbeatInterval", "1s"); // the progress bar's pace
    }
    SparkSession spark = builder.getOrCreate();
    JobEnd.run(spark, () -> new DemoJob(spark, options, System.out, System.err).run());
  }
}
