package dev.stoker.tools.spark;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.metrics.ShuffleQuality;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Runs the {@code shuffle} benchmark on an embedded Spark ({@code local[ranks]}): an input written
 * sorted by label (ten classes, as ETL output usually is sorted by something), read through {@code
 * format("stoker")} for {@code epochs} epochs with each setting of the shuffle (without it, and
 * with each shuffle buffer, a read and a stage per epoch), then in one training run with {@code
 * epochOrder=global} (one stage for every epoch), every rank's rows in order recorded; for each
 * setting the rows/s and the two {@link ShuffleQuality} measures, beside those of a uniform random
 * permutation of the same rows.
 */
public final class ShuffleBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "shuffle";

  /** Floats per row beside the row's index and label: a small image's worth of bytes. */
  static final int ELEMENTS = 64;

  /** Classes of the label. */
  static final int CLASSES = 10;

  /** Files the input is written as, each a stretch of the rows in order. */
  static final int FILES = 8;

  /**
   * Parquet row groups of this many bytes: this input compresses so well that each file is one row
   * group (25,000 rows of the default 200,000; 125,000 of 1,000,000), four a rank on two ranks.
   */
  static final long ROW_GROUP_BYTES = 4L << 20;

  /** Shuffle buffers tried by default: the option's default (0 here) and a smaller and a larger. */
  public static final List<Integer> DEFAULT_BUFFERS = List.of(1024, 0, 65_536);

  /**
   * What to run.
   *
   * @param buffers the shuffle buffers to try, in rows; 0 for the option's default
   */
  public record Config(long rows, int ranks, int batchSize, int epochs, List<Integer> buffers) {
    public Config {
      if (ranks <= 0 || batchSize <= 0 || epochs <= 0) {
        throw new IllegalArgumentException(
            String.format(
                "ranks %d, batchSize %d, epochs %d (expected: each > 0)",
                ranks, batchSize, epochs));
      }
      if (rows < (long) ranks * batchSize || rows >= 1L << 40) {
        throw new IllegalArgumentException(
            "rows: "
                + rows
                + " (expected: at least ranks x batchSize = "
                + (long) ranks * batchSize
                + " and below 2^40)");
      }
      if (buffers.isEmpty() || buffers.stream().anyMatch(b -> b < 0)) {
        throw new IllegalArgumentException(
            "buffers: " + buffers + " (expected: one or more counts >= 0, 0 for the default)");
      }
      buffers = List.copyOf(buffers);
    }
  }

  /** One setting's epochs: seconds and quality of each. */
  public record Setting(String name, List<Double> seconds, List<ShuffleQuality> quality) {}

  private ShuffleBench() {}

  /**
   * Runs the benchmark, telling each epoch on {@code progress}; the data lives in a temp folder.
   */
  public static ShuffleBenchResult run(Config config, PrintWriter progress) {
    java.nio.file.Path dir = SourceBench.tempFolder("stoker-shuffle-");
    SparkSession spark = SourceBench.session(config.ranks(), WORKLOAD);
    try {
      String data = dir.resolve("data").toString();
      long started = System.nanoTime();
      write(spark, data, config.rows());
      progress.printf(
          Locale.ROOT,
          "stoker: wrote %,d rows sorted by label in %.1f s%n",
          config.rows(),
          (System.nanoTime() - started) / 1e9);
      read(spark, data, config, -1, 0, false); // warm-up
      List<Setting> settings = new ArrayList<>();
      List<ShuffleQuality> permutation = new ArrayList<>();
      List<Integer> ways = new ArrayList<>(config.buffers());
      ways.add(0, -1); // without shuffle first
      for (int buffer : ways) {
        String name =
            buffer < 0 ? "no shuffle" : "shuffleBuffer=" + (buffer == 0 ? "default" : buffer);
        // the same rows whatever the order: the first setting's will do for the permutation
        settings.add(
            setting(
                name,
                config,
                epoch -> read(spark, data, config, buffer, epoch, false),
                buffer < 0 ? permutation : null,
                progress));
      }
      settings.add(
          setting(
              "globalBatchSize=" + config.batchSize() * config.ranks() + ", default buffer",
              config,
              epoch -> read(spark, data, config, 0, epoch, true),
              null,
              progress));
      settings.add(oneRun(spark, data, config, progress));
      return new ShuffleBenchResult(config, settings, permutation);
    } finally {
      spark.stop();
      SourceBench.delete(dir);
    }
  }

  /** How a setting reads an epoch: each rank's rows, as {@link #read} gives them. */
  @FunctionalInterface
  private interface EpochRead {
    long[][] epoch(int epoch);
  }

  /**
   * A setting's epochs, each timed and measured; with {@code permutation}, also a random
   * permutation's quality of each epoch's rows.
   */
  private static Setting setting(
      String name,
      Config config,
      EpochRead reading,
      List<ShuffleQuality> permutation,
      PrintWriter progress) {
    List<Double> seconds = new ArrayList<>();
    List<ShuffleQuality> quality = new ArrayList<>();
    for (int epoch = 0; epoch < config.epochs(); epoch++) {
      long t0 = System.nanoTime();
      long[][] ranks = reading.epoch(epoch);
      double s = (System.nanoTime() - t0) / 1e9;
      long[][] rows = new long[ranks.length][];
      int[][] labels = new int[ranks.length][];
      split(ranks, rows, labels);
      ShuffleQuality q = ShuffleQuality.of(rows, labels, config.batchSize());
      seconds.add(s);
      quality.add(q);
      if (permutation != null) {
        permutation.add(
            ShuffleQuality.ofRandomPermutation(rows, labels, config.batchSize(), epoch));
      }
      tell(progress, name, epoch, s, q);
    }
    return new Setting(name, seconds, quality);
  }

  /**
   * Every epoch in one training run of the default buffer with {@code epochOrder=global}: one
   * barrier stage for all epochs, each planned again over the whole input. An epoch's seconds are
   * its slowest rank's, from its first batch asked for to its last.
   */
  static Setting oneRun(SparkSession spark, String data, Config config, PrintWriter progress) {
    String name = "epochOrder=global, one run";
    int epochs = config.epochs();
    DataFrameReader reader =
        spark
            .read()
            .format("stoker")
            .option("batchSize", config.batchSize())
            .option("worldSize", config.ranks())
            .option("shuffle", true)
            .option("seed", 1)
            .option("dropLast", true);
    TrainingResult<RankEpochs> run =
        StokerSpark.on(reader.load(data))
            .tensor("image", DType.FLOAT32, ELEMENTS)
            .scalar("row", DType.INT64)
            .scalar("label", DType.INT32)
            .option(SparkOptionNames.EPOCH_ORDER, "global")
            .option(SparkOptionNames.EPOCHS, Integer.toString(epochs))
            .run((rank, loader) -> RankEpochs.read(rank, loader, epochs));
    List<Double> seconds = new ArrayList<>();
    List<ShuffleQuality> quality = new ArrayList<>();
    for (int epoch = 0; epoch < epochs; epoch++) {
      long[][] ranks = new long[run.results().size()][];
      double slowest = 0;
      for (RankEpochs rank : run.results()) {
        ranks[rank.rank()] = rank.rows().get(epoch);
        slowest = Math.max(slowest, rank.seconds().get(epoch));
      }
      long[][] rows = new long[ranks.length][];
      int[][] labels = new int[ranks.length][];
      split(ranks, rows, labels);
      ShuffleQuality q = ShuffleQuality.of(rows, labels, config.batchSize());
      seconds.add(slowest);
      quality.add(q);
      tell(progress, name, epoch, slowest, q);
    }
    return new Setting(name, seconds, quality);
  }

  private static void tell(
      PrintWriter progress, String name, int epoch, double seconds, ShuffleQuality q) {
    progress.printf(
        Locale.ROOT,
        "stoker: %-22s epoch %d: %6.2f s, gap entropy %5.2f bits, label TV %.3f%n",
        name,
        epoch,
        seconds,
        q.gapEntropyBits(),
        q.labelTv());
    progress.flush();
  }

  /**
   * A rank's rows in order, each {@code row << 16 | label}, each row's image checked to be its own
   * (its first value {@code row % 97}), as a consumer would touch it.
   */
  private static final class RowLog {
    private long[] rows = new long[1024];
    private int n;

    void add(long index, float firstOfImage, int label) {
      if (firstOfImage != index % 97) {
        throw new IllegalStateException(
            "row " + index + " came with the image of another row (" + firstOfImage + ")");
      }
      if (n == rows.length) {
        rows = java.util.Arrays.copyOf(rows, 2 * n);
      }
      rows[n++] = index << 16 | label;
    }

    long[] rows() {
      return java.util.Arrays.copyOf(rows, n);
    }
  }

  /**
   * What a rank of {@link #oneRun} saw: per epoch its rows ({@code row << 16 | label}), seconds.
   */
  record RankEpochs(int rank, List<long[]> rows, List<Double> seconds)
      implements java.io.Serializable {
    static RankEpochs read(RankContext rank, DataLoader loader, int epochs) {
      int image = loader.layout().schema().indexOf("image");
      int row = loader.layout().schema().indexOf("row");
      int label = loader.layout().schema().indexOf("label");
      List<long[]> all = new ArrayList<>();
      List<Double> seconds = new ArrayList<>();
      for (int epoch = 0; epoch < epochs; epoch++) {
        long started = System.nanoTime();
        RowLog log = new RowLog();
        for (Batch batch : loader.epoch(epoch)) {
          for (int r = 0; r < batch.size(); r++) {
            log.add(
                batch.getLong(row, r, 0), batch.getFloat(image, r, 0), batch.getInt(label, r, 0));
          }
        }
        seconds.add((System.nanoTime() - started) / 1e9);
        all.add(log.rows());
      }
      return new RankEpochs(rank.rank(), all, seconds);
    }
  }

  /** The input: {@code row}, {@code label = row x 10 / rows} (sorted), an {@code image}. */
  static void write(SparkSession spark, String data, long rows) {
    spark
        .range(0, rows, 1, FILES)
        .selectExpr(
            "id AS row",
            "CAST(id * " + CLASSES + " / " + rows + " AS INT) AS label",
            "array_repeat(CAST(id % 97 AS FLOAT), " + ELEMENTS + ") AS image")
        .write()
        .option("parquet.block.size", Long.toString(ROW_GROUP_BYTES))
        .parquet(data);
  }

  /**
   * One epoch's rows, per rank in order, each {@code row << 16 | label}; {@code buffer} -1 reads
   * without shuffle, 0 with the default buffer; with {@code global}, in the global order of a
   * {@code globalBatchSize} of the batch on every rank.
   */
  static long[][] read(
      SparkSession spark, String data, Config config, int buffer, int epoch, boolean global) {
    DataFrameReader reader =
        spark
            .read()
            .format("stoker")
            .option(
                global ? "globalBatchSize" : "batchSize",
                global ? config.batchSize() * config.ranks() : config.batchSize())
            .option("worldSize", config.ranks())
            .option("shuffle", buffer >= 0)
            .option("seed", 1)
            .option("epoch", Math.max(0, epoch))
            .option("dropLast", true);
    if (buffer > 0) {
      reader = reader.option("shuffleBuffer", buffer);
    }
    BatchScanExec scan = StokerRead.scan(reader.load(data).queryExecution().executedPlan());
    StructType schema = scan.scan().readSchema();
    int row = schema.fieldIndex("row");
    int label = schema.fieldIndex("label");
    int image = schema.fieldIndex("image");
    List<long[]> ranks =
        scan.executeColumnar()
            .toJavaRDD()
            .mapPartitions(batches -> List.of(rows(batches, row, label, image)).iterator())
            .collect();
    return ranks.toArray(long[][]::new);
  }

  private static long[] rows(Iterator<ColumnarBatch> batches, int row, int label, int image) {
    RowLog log = new RowLog();
    while (batches.hasNext()) {
      ColumnarBatch batch = batches.next();
      ColumnVector rows = batch.column(row);
      ColumnVector labels = batch.column(label);
      ColumnVector images = batch.column(image);
      for (int r = 0; r < batch.numRows(); r++) {
        log.add(rows.getLong(r), images.getArray(r).getFloat(0), labels.getInt(r));
      }
    }
    return log.rows();
  }

  private static void split(long[][] ranks, long[][] rows, int[][] labels) {
    for (int r = 0; r < ranks.length; r++) {
      rows[r] = new long[ranks[r].length];
      labels[r] = new int[ranks[r].length];
      for (int i = 0; i < ranks[r].length; i++) {
        rows[r][i] = ranks[r][i] >>> 16;
        labels[r][i] = (int) (ranks[r][i] & 0xffff);
      }
    }
  }
}
