package dev.stoker.tools.spark;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.Placement;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.source.StokerScan;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Runs the {@code resume} benchmark: the time to the first batch when a loader resumes at 0 %, 50 %
 * and 90 % of an epoch, for an indexed source (a map dataset of {@code rows} samples, generated as
 * they are read) and for {@code format("stoker")} over Parquet ({@code resumeFrom}, every rank's
 * first batch through a Spark job on {@code local[ranks]}). The cuts alternate within each of
 * {@code repeats} rounds after one warm-up round; the median counts. Skipped rows are never read,
 * so a late cut should cost no more than an early one.
 */
public final class ResumeBench {
  /** The workload's name on the command line. */
  public static final String WORKLOAD = "resume";

  /** Where in the epoch the loaders resume, in percent. */
  static final int[] CUTS = {0, 50, 90};

  /** What to run. */
  public record Config(
      long rows, int elements, int ranks, int batchSize, int repeats, int workers) {
    public Config {
      if (elements <= 0 || ranks <= 0 || batchSize <= 0 || repeats <= 0 || workers < 0) {
        throw new IllegalArgumentException(
            String.format(
                "elements %d, ranks %d, batchSize %d, "
                    + "repeats %d, workers %d (expected: each > 0, workers >= 0)",
                elements, ranks, batchSize, repeats, workers));
      }
      if (rows < 2L * ranks * batchSize || rows > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "rows: "
                + rows
                + " (expected: at least 2 x ranks x "
                + "batchSize = "
                + 2L * ranks * batchSize
                + ", at most "
                + Integer.MAX_VALUE
                + ")");
      }
    }
  }

  private ResumeBench() {}

  /**
   * Runs the benchmark, telling each round on {@code progress}; the data lives in a temp folder.
   */
  public static ResumeBenchResult run(Config config, PrintWriter progress) {
    Path dir = SourceBench.tempFolder("stoker-resume-");
    SparkSession spark = SourceBench.session(config.ranks(), WORKLOAD);
    try {
      String data = dir.resolve("data").toString();
      SourceBench.write(data, config.rows(), config.elements(), progress);
      Map<String, List<List<Double>>> seconds = new LinkedHashMap<>();
      seconds.put("indexed", lists());
      seconds.put("parquet", lists());
      for (int round = 0; round <= config.repeats(); round++) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < CUTS.length; c++) {
          double indexed = indexed(config, CUTS[c]);
          double parquet = parquet(spark, data, config, CUTS[c]);
          if (round > 0) {
            seconds.get("indexed").get(c).add(indexed);
            seconds.get("parquet").get(c).add(parquet);
          }
          line.append(
              String.format(
                  Locale.ROOT,
                  "  %d%%: indexed %.3f s, parquet %.3f s",
                  CUTS[c],
                  indexed,
                  parquet));
        }
        progress.printf(
            Locale.ROOT,
            "stoker: %-9s%s%n",
            round == 0 ? "warm-up" : "run " + round + "/" + config.repeats(),
            line);
        progress.flush();
      }
      return new ResumeBenchResult(config, seconds);
    } finally {
      spark.stop();
      SourceBench.delete(dir);
    }
  }

  private static List<List<Double>> lists() {
    List<List<Double>> lists = new ArrayList<>();
    for (int ignored : CUTS) {
      lists.add(new ArrayList<>());
    }
    return lists;
  }

  private static LoaderOptions options(Config config) {
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(config.batchSize())
            .shuffle(true)
            .seed(1)
            .dropLast(true)
            .numWorkers(config.workers());
    return config.workers() > 0 ? options.prefetchFactor(2).build() : options.build();
  }

  /** Seconds from building rank 0's loader at {@code percent} % of epoch 1 to its first batch. */
  static double indexed(Config config, int percent) {
    Generated dataset = new Generated((int) config.rows(), config.elements());
    long batches = config.rows() / ((long) config.ranks() * config.batchSize());
    LoaderState state =
        LoaderState.startOf(
                1,
                true,
                1,
                config.ranks(),
                config.batchSize(),
                true,
                0,
                InputFingerprint.ofRows(config.rows()))
            .plusBatches(batches * percent / 100);
    long started = System.nanoTime();
    try (DataLoader loader =
        DataLoader.builder(dataset)
            .options(options(config))
            .placement(Placement.of(0, config.ranks()))
            .resumeFrom(state)
            .build()) {
      Iterator<Batch> epoch = loader.iterator();
      epoch.next().close();
      return (System.nanoTime() - started) / 1e9;
    }
  }

  /**
   * Seconds from making the {@code format("stoker")} DataFrame resumed at {@code percent} % of
   * epoch 1 to every rank's first batch.
   */
  static double parquet(SparkSession spark, String data, Config config, int percent) {
    StokerScan fresh = scan(reader(spark, config).option("epoch", 1).load(data));
    String state = fresh.stateAfter((long) fresh.batchesPerRank() * percent / 100).toString();
    long started = System.nanoTime();
    Dataset<Row> df = reader(spark, config).option("resumeFrom", state).load(data);
    BatchScanExec scan = scanNode(df.queryExecution().executedPlan());
    List<Integer> first =
        scan.executeColumnar().toJavaRDD().mapPartitions(ResumeBench::firstBatch).collect();
    double seconds = (System.nanoTime() - started) / 1e9;
    if (first.size() != config.ranks() || first.contains(0)) {
      throw new IllegalStateException(
          "ranks' first batches: "
              + first
              + " (expected: a batch "
              + "of "
              + config.batchSize()
              + " rows on each of "
              + config.ranks()
              + " ranks)");
    }
    return seconds;
  }

  private static Iterator<Integer> firstBatch(Iterator<ColumnarBatch> batches) {
    return List.of(batches.hasNext() ? batches.next().numRows() : 0).iterator();
  }

  private static DataFrameReader reader(SparkSession spark, Config config) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", config.batchSize())
        .option("worldSize", config.ranks())
        .option("shuffle", true)
        .option("seed", 1)
        .option("dropLast", true)
        .option("numWorkers", config.workers());
  }

  private static StokerScan scan(Dataset<Row> df) {
    return (StokerScan) scanNode(df.queryExecution().executedPlan()).scan();
  }

  private static BatchScanExec scanNode(SparkPlan plan) {
    if (plan instanceof BatchScanExec scan) {
      return scan;
    }
    scala.collection.Seq<SparkPlan> children = plan.children();
    for (int i = 0; i < children.size(); i++) {
      BatchScanExec found = scanNode(children.apply(i));
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** Samples of {@code elements} floats and a label, made from the index as they are read. */
  private static final class Generated implements MapDataset {
    private final int size;
    private final Schema schema;

    Generated(int size, int elements) {
      this.size = size;
      this.schema =
          Schema.of(Field.of("image", DType.FLOAT32, elements), Field.scalar("label", DType.INT32));
    }

    @Override
    public Schema schema() {
      return schema;
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public void write(int index, SampleWriter row) {
      int elements = schema.field(0).elements();
      for (int e = 0; e < elements; e++) {
        row.putFloat(0, e, index + e);
      }
      row.putInt(1, 0, index % 10);
    }
  }
}
