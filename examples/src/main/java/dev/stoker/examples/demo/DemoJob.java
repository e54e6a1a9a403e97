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
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import picocli.CommandLine;

/**
 * The main job: Fashion-MNIST found or fetched, written once as Parquet, its pixel statistics
 * computed with Stoker over the ranks, and a small CNN in PyTorch (or an MLP in plain Java) trained
 * data-parallel over them, every epoch in one Spark barrier stage, read through {@code
 * format("stoker")} in an order planned again over the whole table each epoch, and normalized by
 * the loader. Prints per epoch the loss, the test accuracy, samples/s, the bottleneck verdict and
 * the rows dropped per rank, and writes a plot and a JSON summary.
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
    Broadcast<TestSet> shared =
        JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(test);
    TrainingResult<DemoTraining.Outcome> run;
    try {
      run = train(data, stats, png, transforms, model, shared);
    } finally {
      shared.destroy();
    }
    model.update(run.result(0).weights());
    out.println("ranks: " + placement(run.report()));
    List<DemoSummary.Epoch> epochs = new ArrayList<>();
    for (int epoch = 0; epoch < options.epochs; epoch++) {
      DemoSummary.Epoch line = summarize(epoch, run.results(), data.trainRows());
      epochs.add(line);
      out.println(line.text(options.epochs));
      String note = model.epochNote(run.results(), epoch);
      if (!note.isEmpty()) {
        out.println("  " + note);
      }
    }
    out.flush();

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
        model.closingNote(run.results()));
    return summary;
  }

  /**
   * Every epoch in one barrier stage over {@code format("stoker")} with {@code epochOrder=global}:
   * each epoch's order planned again over the whole training table, rows moving between ranks
   * without a new stage. The raw pixels are normalized by the loader; {@code --images} reads the
   * PNG table through {@code transforms} in the loader's workers (float32 [1,28,28], already
   * normalized), the same model step.
   */
  private TrainingResult<DemoTraining.Outcome> train(
      ParquetCache.Tables data,
      PixelStats.Result stats,
      Path png,
      String transforms,
      DemoModel model,
      Broadcast<TestSet> test) {
    int ranks = options.ranks;
    long perEpoch = (data.trainRows() / ((long) ranks * options.batchSize)) * ranks;
    ProgressLine bar = new ProgressLine(err, options.epochs, perEpoch);
    DataFrameReader read =
        DemoReads.reader(spark, options.batchSize, ranks, options.seed, true)
            .option("epochOrder", "global");
    StokerSpark training =
        png == null
            ? StokerSpark.on(read.load(data.train().toString()).select("pixels", "label"))
                .tensor("pixels", DType.UINT8, 1, 28, 28)
                .scalar("label", DType.INT64)
                .normalize("pixels", stats.mean(), stats.std())
            : StokerSpark.on(
                    read.option("transforms", transforms)
                        .load(png.toString())
                        .select("pixels", "label"))
                .tensor("pixels", DType.FLOAT32, 1, 28, 28)
                .scalar("label", DType.INT32); // as stored: the transform passes it through
    try {
      return training
          .options(loaderOptions(1, true))
          .worldSize(ranks)
          .onProgress(bar)
          .run(new DemoTraining(model.network(), options.epochs, test));
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
   * Samples/s of one pass of {@code format("stoker")} over the PNG table through the transforms.
   */
  private double imagesReadPass(Path png, String transforms, int workers) {
    long begin = System.nanoTime();
    Row floats =
        DemoReads.reader(spark, options.batchSize, options.ranks, options.seed, true)
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
        DemoReads.reader(spark, options.batchSize, options.ranks, options.seed, true)
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

  /** Epoch {@code epoch} over the ranks, from what each measured. */
  private static DemoSummary.Epoch summarize(
      int epoch, List<DemoTraining.Outcome> ranks, long rows) {
    double loss = 0;
    long batches = 0;
    long planned = 0;
    double rate = 0;
    double seconds = 0;
    List<Long> dropped = new ArrayList<>();
    for (DemoTraining.Outcome rank : ranks) {
      EpochFigures figures = rank.epochs().get(epoch);
      loss += figures.lossSum();
      batches += figures.batches();
      planned += figures.samples() + figures.droppedRows();
      rate += figures.samples() / Math.max(figures.seconds(), 1e-9);
      seconds = Math.max(seconds, figures.seconds());
      dropped.add(figures.droppedRows());
    }
    EpochFigures first = ranks.get(0).epochs().get(epoch);
    return new DemoSummary.Epoch(
        epoch + 1,
        loss / Math.max(batches, 1),
        first.accuracy(),
        rate,
        first.verdict(),
        rows - planned, // the tail of the epoch's order that the read plans for no rank
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
