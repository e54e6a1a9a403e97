package dev.stoker.spark.python;

import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.cluster.RankLaunch;
import dev.stoker.spark.cluster.TaskSlots;
import dev.stoker.spark.options.OptionRegistry;
import dev.stoker.spark.options.SparkOptionTable;
import dev.stoker.spark.parquet.EpochPlanner;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.SourceOptions;
import dev.stoker.spark.progress.ProgressCounters;
import dev.stoker.spark.source.ScanPlans;
import dev.stoker.spark.source.StokerScan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.TaskCompletionListener;

/**
 * A {@code format("stoker")} read as seen from Python: {@link #of} gives a DataFrame of one row per
 * rank (partition r is rank r), which a barrier {@code mapInArrow}, {@code mapInPandas} or RDD
 * {@code mapPartitions} hands to {@code stoker.torch.batches}. Computing rank r's row starts that
 * rank's loader in the task ({@link RankPump}), with its slots in a file of {@link #DEFAULT_DIR}
 * (or {@link #DIR_CONF}); the task's end, however it ends, stops it and deletes the file.
 */
public final class PythonRanks {
  /** Spark setting: the shared-memory folder of the slot files. */
  public static final String DIR_CONF = OptionRegistry.setting(SparkOptionTable.PYTHON_SHM_DIR);

  public static final String DEFAULT_DIR = SparkOptionTable.PYTHON_SHM_DIR.defaultValue();

  /** The rows' schema: the rank, and its handle (JSON). */
  public static final StructType SCHEMA =
      new StructType()
          .add("rank", DataTypes.IntegerType, false)
          .add("stoker", DataTypes.StringType, false);

  private PythonRanks() {}

  /**
   * One handle row per rank of {@code read}, which must be a {@code format("stoker")} read, at most
   * with a choice of its columns.
   *
   * @throws IllegalArgumentException for any other DataFrame, saying what to pass, or where the
   *     cluster cannot run the read's {@code worldSize} tasks at once (both numbers, the remedy)
   */
  public static Dataset<Row> of(Dataset<Row> read) {
    SparkPlan executed = read.queryExecution().executedPlan();
    StokerScan stoker = ScanPlans.stokerScan(executed);
    if (stoker == null) {
      throw new IllegalArgumentException(
          "stoker.torch: expected a spark.read.format(\"stoker\") "
              + "read, at most with select() of its columns (filter or transform the data before "
              + "writing the Parquet, or apply it to the tensors in Python), but the plan is:\n"
              + executed);
    }
    SparkSession spark = read.sparkSession();
    String dir = spark.conf().get(DIR_CONF, DEFAULT_DIR);
    ReadPlan plan = stoker.plan();
    int world = plan.ranks().size();
    // epochOrder=global, or globalBatchSize: each later epoch planned as a read of it would be
    SourceOptions options = stoker.read().dataset().options();
    EpochPlanner epochs =
        options.globalEpochs() || options.global() != null
            ? stoker
                .read()
                .epochPlanner(
                    stoker.config().loader().options(),
                    world,
                    options.global() != null ? "globalBatchSize" : "epochOrder=global")
            : null;
    TaskSlots.require(spark.sparkContext(), world); // as the runner does, before any task
    // the ranks' figures for the Stoker page, with the tasks' heartbeats
    ProgressCounters counters = ProgressCounters.register(spark.sparkContext());
    List<Integer> ranks = new ArrayList<>();
    for (int r = 0; r < world; r++) {
      ranks.add(r);
    }
    JavaRDD<Row> rows =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(ranks, world)
            .mapPartitionsWithIndex(
                new StartRank(
                    plan,
                    stoker.config(),
                    dir,
                    stoker.stateAfter(0),
                    stoker.read().dataset().options().resumeFrom(),
                    epochs,
                    counters),
                true);
    PythonRun.watch(
        spark.sparkContext(),
        rows.rdd().id(),
        "Python ranks over Parquet " + stoker.read().dataset().input(),
        world,
        stoker.config().loader().options(),
        counters);
    return spark.createDataFrame(rows, SCHEMA);
  }

  /** Why rank {@code rank} refuses to start in stage {@code stage}, which is not a barrier one. */
  static String notBarrier(int rank, int stage) {
    return "stoker.torch: rank "
        + rank
        + " started in stage "
        + stage
        + ", which is not a "
        + "barrier stage: its ranks may then run one after another or be retried alone, and "
        + "ranks that meet in collectives wait for each other forever (expected: "
        + "mapInArrow/mapInPandas(..., barrier=True) or rdd.barrier().mapPartitions over the "
        + "handle rows)";
  }

  /** The folder for the slot files: {@code configured} if it is one, else the temporary folder. */
  static Path folder(String configured) {
    Path dir = Paths.get(configured);
    return Files.isDirectory(dir) ? dir : Paths.get(System.getProperty("java.io.tmpdir"));
  }

  /** In rank r's task: starts its pump, ties it to the task, and yields its handle row. */
  private static final class StartRank
      implements Function2<Integer, Iterator<Integer>, Iterator<Row>> {
    private static final long serialVersionUID = 1L;

    private final ReadPlan plan;
    private final ReadConfig config;
    private final String dir;
    private final LoaderState start;
    private final LoaderState resumedFrom;
    private final EpochPlanner epochs;
    private final ProgressCounters counters;

    StartRank(
        ReadPlan plan,
        ReadConfig config,
        String dir,
        LoaderState start,
        LoaderState resumedFrom,
        EpochPlanner epochs,
        ProgressCounters counters) {
      this.counters = counters;
      this.plan = plan;
      this.config = config;
      this.dir = dir;
      this.start = start;
      this.resumedFrom = resumedFrom;
      this.epochs = epochs;
    }

    @Override
    public Iterator<Row> call(Integer rank, Iterator<Integer> ignored) {
      TaskContext task = TaskContext.get();
      if (task == null) {
        throw new IllegalStateException(
            "stoker.torch: rank " + rank + " must start in a Spark " + "task");
      }
      if (!(task instanceof BarrierTaskContext)) {
        throw new IllegalStateException(notBarrier(rank, task.stageId()));
      }
      // a lone rank started again would wait in the training's first collective until it times out
      String refusal = RankLaunch.refusal((BarrierTaskContext) task, plan.ranks().size());
      if (refusal != null) {
        throw new IllegalStateException("stoker.torch: " + refusal);
      }
      RankPump pump =
          RankPump.start(plan, config, rank, folder(dir), start, resumedFrom, epochs, counters);
      task.addTaskCompletionListener((TaskCompletionListener) context -> pump.close());
      return Collections.singletonList(RowFactory.create(rank, pump.handle())).iterator();
    }
  }
}
