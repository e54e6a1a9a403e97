package dev.stoker.spark.run;

import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.CacheMode;
import dev.stoker.spark.EpochOrder;
import dev.stoker.spark.LoadReport;
import dev.stoker.spark.RankProgress;
import dev.stoker.spark.RankReport;
import dev.stoker.spark.RapidsStatus;
import dev.stoker.spark.Rebalance;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.cluster.TaskSlots;
import dev.stoker.spark.options.SparkOptionTable;
import dev.stoker.spark.parquet.EpochPlanner;
import dev.stoker.spark.parquet.GlobalBatch;
import dev.stoker.spark.parquet.ParquetRead;
import dev.stoker.spark.parquet.PlanQuality;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.RowErrors;
import dev.stoker.spark.parquet.SourceOptions;
import dev.stoker.spark.progress.ProgressCounters;
import dev.stoker.spark.progress.ProgressTracker;
import dev.stoker.spark.rapids.RapidsDetection;
import dev.stoker.spark.rows.BadRowException;
import dev.stoker.spark.rows.InputRdd;
import dev.stoker.spark.run.balance.BarrierChain;
import dev.stoker.spark.run.balance.BlockMapper;
import dev.stoker.spark.run.balance.InputChangedException;
import dev.stoker.spark.run.balance.RankPartitioner;
import dev.stoker.spark.run.balance.RankSizing;
import dev.stoker.spark.run.balance.RowCounts;
import dev.stoker.spark.shard.ShardBlock;
import dev.stoker.spark.shard.ShardBudgetException;
import dev.stoker.spark.shard.Sizes;
import dev.stoker.spark.ui.RunEvents;
import dev.stoker.spark.ui.StokerRunStart;
import dev.stoker.spark.ui.StokerUi;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.LoggerFactory;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * The driver's side of a run. When the input has one partition per rank (and Spark may run it in a
 * barrier stage as it is) the ranks read their partitions in place; if their counts then differ by
 * more than one, or otherwise, the input is counted (or the counts of that first attempt are
 * reused) and shuffled once into balanced rank partitions. The barrier stage's outcomes go through
 * a shuffle of their own, which makes the barrier stage a map stage that Spark retries as a whole.
 */
public final class BarrierRun {
  private static final ClassTag<Object> ANY = ClassTag$.MODULE$.AnyRef();
  private static final ClassTag<Integer> INT = ClassTag$.MODULE$.apply(Integer.class);
  private static final ClassTag<RankOutcome> OUTCOME = ClassTag$.MODULE$.apply(RankOutcome.class);

  /** Spark's local property for the description of the jobs a thread starts. */
  private static final String JOB_DESCRIPTION = "spark.job.description";

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final ClassTag<Tuple2<Integer, RankOutcome>> PAIR =
      (ClassTag) ClassTag$.MODULE$.apply(Tuple2.class);

  private final SparkSession session;
  private final Dataset<Row> input;
  private final RankSpec spec;
  private final SparkContext spark;
  private final PlannedInput planned;

  /** The run's Stoker events and progress listener, while {@link #run} runs. */
  private RunEvents events;

  private ProgressTracker tracker;

  /** A run of {@code spec} over {@code input}, streamed from its files if {@code planned}. */
  BarrierRun(Dataset<Row> input, RankSpec spec, PlannedInput planned) {
    this.session = input.sparkSession();
    this.input = input;
    this.spec = spec;
    this.spark = session.sparkContext();
    this.planned = planned;
  }

  static ProgressCounters counters(Dataset<Row> input) {
    return ProgressCounters.register(input.sparkSession().sparkContext());
  }

  <R> TrainingResult<R> run(Consumer<RankProgress> progress) {
    events =
        StokerUi.of(spark)
            .run(
                spark,
                new StokerRunStart(
                    UUID.randomUUID().toString().substring(0, 8),
                    System.currentTimeMillis(),
                    inputText(),
                    spec.worldSize,
                    spec.options().batchSize(),
                    spec.options().numWorkers(),
                    spec.options().prefetchFactor()));
    tracker = new ProgressTracker(spec.counters, callback(progress), events);
    spark.addSparkListener(tracker);
    String description = spark.getLocalProperty(JOB_DESCRIPTION);
    String failure = "stopped";
    List<String> orders = List.of();
    try {
      TrainingResult<R> result = runStages();
      failure = null;
      orders = result.report().epochOrders();
      return result;
    } catch (RuntimeException | Error e) {
      failure = e.toString();
      throw e;
    } finally {
      spark.setLocalProperty(JOB_DESCRIPTION, description);
      spark.removeSparkListener(tracker);
      events.ended(failure, orders);
    }
  }

  /** The user's progress callback as the tracker calls it; what it throws is logged. */
  private static ProgressTracker.Progress callback(Consumer<RankProgress> progress) {
    if (progress == null) {
      return null;
    }
    return (rank, rows, batches, waitMillis, finished) -> {
      try {
        progress.accept(new RankProgress(rank, rows, batches, waitMillis, finished));
      } catch (RuntimeException e) {
        LoggerFactory.getLogger(BarrierRun.class)
            .warn("stoker: the progress callback failed for rank {}", rank, e);
      }
    };
  }

  /** What the run reads, for the Stoker page. */
  private String inputText() {
    return planned != null
        ? "Parquet " + planned.read().dataset().input()
        : "a DataFrame of " + input.columns().length + " columns";
  }

  private <R> TrainingResult<R> runStages() {
    TaskSlots.require(spark, spec.worldSize);
    if (planned != null) {
      return streamed();
    }
    @SuppressWarnings("unchecked")
    RDD<Object> rows = (RDD<Object>) InputRdd.of(input);
    int worldSize = spec.worldSize;
    List<RankOutcome> outcomes = null;
    long[] counts = null;
    if (spec.run.rebalance() == Rebalance.AUTO && BarrierChain.fits(rows, worldSize)) {
      describe("loading %d partitions in place into %d ranks", worldSize, worldSize);
      outcomes = barrier(rows, RankTask.inPlace(spec));
      if (outcomes.get(0).kind == RankOutcome.Kind.UNBALANCED) {
        counts = new long[worldSize];
        for (RankOutcome outcome : outcomes) {
          counts[outcome.rank] = outcome.rows;
        }
        outcomes = null;
      }
    }
    boolean rebalanced = outcomes == null;
    if (rebalanced) {
      outcomes = shuffled(rows, counts);
    }
    return results(outcomes, -1, 0, rows.getNumPartitions(), false, rebalanced, List.of());
  }

  /**
   * The ranks stream their planned row ranges of the input's Parquet files into their loaders: the
   * plan comes from the footers (no Spark job), and a barrier stage of one task per rank reads it.
   */
  /**
   * What a run over a read with a transform cannot do: normalize columns (the transform writes the
   * batch) or keep a disk cache (its output differs every epoch; every epoch streams instead).
   */
  private void refuseWithTransforms(String writer) {
    if (spec.normalizations.length > 0) {
      throw new IllegalArgumentException(
          String.format(
              "%s: the run also normalizes column '%s' (expected: no normalize(...) "
                  + "on the run; normalize in the read, e.g. a transform's normalize step)",
              writer, spec.normalizations[0].column()));
    }
    if (spec.run.cache() == CacheMode.DISK || spec.run.cache() == CacheMode.MEMORY) {
      throw new IllegalArgumentException(
          String.format(
              "%s with cache=%s: its rows differ every epoch, so every epoch streams from "
                  + "the files (expected: cache=auto or none)",
              writer, spec.run.cache().label()));
    }
  }

  private <R> TrainingResult<R> streamed() {
    ParquetRead read = planned.read();
    SourceOptions given = planned.readOptions();
    LoaderState base = given == null ? null : given.resumeFrom();
    // A read's globalBatchSize plans every epoch again, as a read of that epoch plans it.
    GlobalBatch globalBatch = given == null ? null : read.global();
    // A run plans the row groups once, in its read's epoch's order (a resumed run: the state's).
    int epoch = base != null ? base.orderEpoch() : given == null ? 0 : given.epoch();
    // a resumed run reports the rows its first epoch, the resumed one, leaves out: the plan of
    // that epoch's rest, which also checks the state against the input
    ReadPlan first =
        base == null
            ? null
            : read.plan(spec.options(), spec.worldSize, base, given.acceptChangedInput());
    boolean global =
        spec.run.epochOrder() == EpochOrder.GLOBAL
            || given != null && given.globalEpochs()
            || globalBatch != null;
    String order =
        globalBatch != null
            ? SparkOptionTable.GLOBAL_BATCH_SIZE.name() + "=" + globalBatch.rows()
            : GLOBAL_ORDER;
    if (global) {
      checkGlobalOrder(given, base, order);
    }
    boolean verify = spec.run.verifyChecksums() && (given == null || given.verifyChecksums());
    ReadPlan plan = read.plan(spec.options(), spec.worldSize, epoch);
    ReadConfig config =
        read.config(
            spec.options(),
            spec.worldSize,
            epoch,
            given == null ? null : given.shuffleBuffer(),
            verify);
    if (config.transforms() != null) {
      refuseWithTransforms("transforms='" + config.transforms() + "'");
    } else if (config.tokens() != null) {
      refuseWithTransforms(config.tokens().toString());
    }
    EpochPlanner epochs = global ? read.epochPlanner(spec.options(), spec.worldSize, order) : null;
    long shardBytes = plan.rowsPerRank() * config.rowBytes();
    if (config.transforms() == null
        && config.tokens() == null
        && (spec.run.cache() == CacheMode.DISK || spec.run.cache() == CacheMode.MEMORY)
        && shardBytes > spec.run.maxShardBytes()) {
      throw new ShardBudgetException(
          String.format(
              "shard cache of rank 0: %d rows x %d bytes = "
                  + "%s (expected: at most maxShardBytes = %s; raise maxShardBytes, use more ranks, "
                  + "fewer columns, or cache=auto, which streams every epoch when the cache does not "
                  + "fit)",
              plan.rowsPerRank(),
              config.rowBytes(),
              Sizes.text(shardBytes),
              Sizes.text(spec.run.maxShardBytes())));
    }
    describe(
        "streaming %d rows of %s into %d ranks%s",
        plan.rowsPerRank() * spec.worldSize,
        read.dataset().input(),
        spec.worldSize,
        global ? ", each epoch planned again over the whole input" : "");
    List<RankRuns> runs = new ArrayList<>();
    for (int r = 0; r < spec.worldSize; r++) {
      runs.add(plan.rank(r));
    }
    // One element per partition: each task carries its own rank's runs, not the whole plan.
    RDD<RankRuns> ranks = new JavaSparkContext(spark).parallelize(runs, spec.worldSize).rdd();
    long dropped = first != null ? first.droppedRows() : plan.droppedRows();
    ReadPlan figures =
        new ReadPlan(
            plan.rows(),
            plan.rowGroups(),
            plan.rowsPerRank(),
            plan.batchesPerRank(),
            dropped,
            plan.paddedRows(),
            List.of());
    List<RankOutcome> outcomes;
    CommitLog commits =
        new CommitLog(
            spec.worldSize, base, state -> read.plan(spec.options(), spec.worldSize, state, true));
    CommitServer server;
    try {
      server =
          new CommitServer(commits, spark.getConf().get("spark.driver.bindAddress", driverHost()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(
          "starting the driver's commit server on " + driverHost() + " failed: " + e.getMessage(),
          e);
    }
    RankSpec ranked =
        spec.withCommits(
            server.endpoint(
                driverHost(),
                epoch,
                global,
                config.windowRows(),
                globalBatch == null ? 0 : globalBatch.streams(),
                read.fingerprint()));
    InputFaultWatch watch = new InputFaultWatch(spark);
    spark.addSparkListener(watch);
    try {
      outcomes = barrier(ranks, RankTask.planned(ranked, config, figures, epochs));
    } catch (Exception e) { // Spark's SparkException is checked, though Scala throws it freely
      String fault = watch.fault();
      if (fault != null) {
        throw withCause(new IllegalArgumentException(fault), e);
      }
      throw BarrierRun.<RuntimeException>rethrow(inputProblem(e));
    } finally {
      server.close();
      spark.removeSparkListener(watch);
    }
    TrainingResult<R> result =
        results(
            outcomes,
            plan.rows(),
            dropped,
            read.dataset().files().size(),
            true,
            false,
            measuredOrders(outcomes, plan, epochs, config, base));
    return new TrainingResult<>(result.results(), result.report(), commits.common());
  }

  private static final String GLOBAL_ORDER =
      SparkOptionNames.EPOCH_ORDER + "=" + EpochOrder.GLOBAL.label();

  /**
   * What a run that plans every epoch again over the whole input cannot take: a shard cache (a
   * rank's rows change every epoch), a read's {@code epoch} (epoch {@code n} is read in epoch
   * {@code n}'s order), or a state taken by a run whose epochs kept one order.
   *
   * @param order the option that plans every epoch again, for the messages
   */
  private void checkGlobalOrder(SourceOptions given, LoaderState base, String order) {
    String otherwise =
        order.equals(GLOBAL_ORDER) ? "epochOrder=rank" : "batchSize per rank and epochOrder=rank";
    if (spec.run.cache() == CacheMode.DISK || spec.run.cache() == CacheMode.MEMORY) {
      throw new IllegalArgumentException(
          order
              + " with cache="
              + spec.run.cache().label()
              + ": a rank's rows change every epoch, so a cache of its first epoch's rows serves "
              + "no later one (expected: cache=auto or none, which stream every epoch from the "
              + "files, or "
              + otherwise
              + ")");
    }
    if (base == null && given != null && given.epoch() != 0) {
      throw new IllegalArgumentException(
          String.format(
              "%s with the read's epoch=%d: each epoch n is read in epoch n's own order, the "
                  + "epoch the rank function asks its loader for (expected: no epoch option on "
                  + "the read, or %s)",
              order, given.epoch(), otherwise));
    }
    if (base != null && base.orderEpoch() != base.epoch()) {
      throw new IllegalArgumentException(
          String.format(
              "%s: resumeFrom holds %s, taken by a run that read every epoch in epoch %d's "
                  + "order (expected: %s to resume it, as it was taken)",
              order, base.describe(), base.orderEpoch(), otherwise));
    }
  }

  /** The address executors reach the driver at. */
  private String driverHost() {
    return spark
        .getConf()
        .get("spark.driver.host", java.net.InetAddress.getLoopbackAddress().getHostAddress());
  }

  private List<RankOutcome> shuffled(RDD<Object> rows, long[] known) {
    int worldSize = spec.worldSize;
    describe("counting the rows of %d partitions for %d ranks", rows.getNumPartitions(), worldSize);
    long[] counts = known != null ? known : RowCounts.count(input, rows);
    long total = 0;
    for (long n : counts) {
      total += n;
    }
    RankSizing sizing =
        RankSizing.of(
            RankSizing.balancedRows(total, worldSize),
            spec.options().batchSize(),
            spec.options().dropLast());
    long shardBytes = sizing.rows(0) * spec.layout().rowBytes();
    if (shardBytes > spec.run.maxShardBytes()) {
      throw new ShardBudgetException(
          String.format(
              "shard of rank 0: %d rows x %d bytes = %s "
                  + "(expected: at most maxShardBytes = %s; raise maxShardBytes, use more ranks or "
                  + "fewer columns)",
              sizing.rows(0),
              spec.layout().rowBytes(),
              Sizes.text(shardBytes),
              Sizes.text(spec.run.maxShardBytes())));
    }
    describe("shuffling %d rows from %d partitions into %d ranks", total, counts.length, worldSize);
    BlockMapper mapper =
        new BlockMapper(spec.copier, counts, worldSize, BlockMapper.blockBytes(worldSize));
    JavaRDD<Tuple2<Integer, ShardBlock>> blocks =
        JavaRDD.fromRDD(rows, ANY).mapPartitionsWithIndex(mapper, false);
    RDD<Tuple2<Integer, ShardBlock>> ranks =
        JavaPairRDD.fromJavaRDD(blocks).partitionBy(new RankPartitioner(worldSize)).rdd();
    try {
      return barrier(ranks, RankTask.shuffled(spec, total));
    } catch (Exception e) { // Spark's SparkException is checked, though Scala throws it freely
      throw BarrierRun.<RuntimeException>rethrow(inputProblem(e));
    }
  }

  /** Every rank stage's job, on every path: see {@link BarrierJobs}. */
  private <T> List<RankOutcome> barrier(RDD<T> ranks, RankTask<T> task) {
    RDD<Tuple2<Integer, RankOutcome>> outcomes =
        ranks.barrier().mapPartitions(task, false, PAIR).setName("stoker ranks");
    List<Tuple2<Integer, RankOutcome>> collected =
        BarrierJobs.run(
            spark,
            () ->
                JavaPairRDD.fromRDD(outcomes, INT, OUTCOME)
                    .partitionBy(new HashPartitioner(1))
                    .collect());
    RankOutcome[] byRank = new RankOutcome[spec.worldSize];
    for (Tuple2<Integer, RankOutcome> one : collected) {
      byRank[one._1()] = one._2();
      if (one._2().figures != null) { // the rank's last figures, which a heartbeat may miss
        events.rank(tracker.placed(one._2().figures));
      }
    }
    Set<String> refusals = new LinkedHashSet<>();
    for (RankOutcome outcome : byRank) {
      if (outcome.kind == RankOutcome.Kind.REFUSED) {
        refusals.add(outcome.message);
      }
    }
    if (!refusals.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", refusals));
    }
    return List.of(byRank);
  }

  /**
   * The results and the report; {@code inputRows} -1: the ranks' rows add up to them. {@code
   * plannedOut} rows no rank reads, beside those the ranks drop.
   */
  private <R> TrainingResult<R> results(
      List<RankOutcome> outcomes,
      long inputRows,
      long plannedOut,
      int inputPartitions,
      boolean streamed,
      boolean rebalanced,
      List<String> epochOrders) {
    List<R> results = new ArrayList<>(outcomes.size());
    List<RankReport> reports = new ArrayList<>(outcomes.size());
    long rows = 0;
    long dropped = 0;
    long padded = 0;
    for (RankOutcome outcome : outcomes) {
      results.add(ResultCodec.decode(outcome.result));
      reports.add(outcome.report);
      rows += outcome.report.rows();
      dropped += outcome.report.droppedRows();
      padded += outcome.report.paddedRows();
    }
    RankReport first = reports.get(0);
    if (inputRows >= 0) {
      rows = inputRows;
    }
    dropped += plannedOut;
    LoadReport report =
        new LoadReport(
            rows,
            spec.worldSize,
            spec.options().batchSize(),
            spec.options().dropLast(),
            first.batchesPerEpoch(),
            dropped,
            padded,
            inputPartitions,
            InputRdd.columnar(input),
            streamed,
            rebalanced,
            rapids(),
            reports,
            epochOrders);
    return new TrainingResult<>(results, report);
  }

  /** The epochs whose order {@link #epochOrders} measures, at most (a few ms each). */
  private static final int MEASURED_EPOCHS = 20;

  /**
   * {@link #epochOrders}, or one line saying why they could not be measured: a measure that fails
   * (out of memory, a plan it cannot read) never costs the run its results.
   */
  private List<String> measuredOrders(
      List<RankOutcome> outcomes,
      ReadPlan plan,
      EpochPlanner epochs,
      ReadConfig config,
      LoaderState base) {
    try {
      return epochOrders(outcomes, plan, epochs, config, base);
    } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
      return List.of("not measured: " + e);
    }
  }

  /**
   * How far each epoch the ranks streamed was from a random permutation, measured from its plan
   * ({@link PlanQuality}); none for a resumed run (its first epoch is a rest) or token rows.
   */
  private List<String> epochOrders(
      List<RankOutcome> outcomes,
      ReadPlan plan,
      EpochPlanner epochs,
      ReadConfig config,
      LoaderState base) {
    if (base != null || config.tokens() != null) {
      return List.of();
    }
    int ran = 0;
    boolean cached = false;
    for (RankOutcome outcome : outcomes) {
      ran = Math.max(ran, outcome.report.epochs());
      cached |= outcome.report.shardFolder() != null;
    }
    if (ran == 0) {
      return List.of();
    }
    PlanQuality.Labels labels = PlanQuality.labels(planned.read().dataset());
    if (!spec.options().shuffle() && labels == null) {
      return List.of("every epoch: storage order");
    }
    List<String> orders = new ArrayList<>();
    for (int e = 0; e < Math.min(ran, MEASURED_EPOCHS); e++) {
      if (e > 0 && cached && epochs == null) {
        orders.add(
            String.format(
                "epochs 1 to %d: from the shard cache, shuffled within the rank's cache blocks "
                    + "(not measured from a plan)",
                ran - 1));
        break;
      }
      PlanQuality.Measure measure =
          PlanQuality.of(
              epochs != null ? epochs.plan(e) : plan,
              config.windowRows(),
              spec.options().shuffle(),
              spec.options().seed(),
              e,
              labels,
              spec.options().batchSize());
      if (measure == null) {
        break;
      }
      orders.add(
          "epoch "
              + e
              + ": "
              + (spec.options().shuffle() ? "" : "storage order: ")
              + measure.describe());
    }
    if (ran > MEASURED_EPOCHS && orders.size() == MEASURED_EPOCHS) {
      orders.add(String.format("epochs %d to %d: not measured", MEASURED_EPOCHS, ran - 1));
    }
    return orders;
  }

  /** Whether the RAPIDS Accelerator runs the session's SQL. */
  private RapidsStatus rapids() {
    RapidsDetection.Found found = RapidsDetection.of(session);
    return new RapidsStatus(found.configured(), found.loadable(), found.sqlEnabled());
  }

  /** The input's own problem, out of the Spark job that met it, as the exception it is. */
  private static Exception inputProblem(Exception failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BadRowException bad) {
        return withCause(new BadRowException(bad.getMessage()), failure);
      }
      if (t instanceof RowErrors.BadRow bad) {
        return withCause(new BadRowException(bad.getMessage()), failure);
      }
      if (t instanceof InputChangedException changed) {
        return withCause(new InputChangedException(changed.getMessage()), failure);
      }
      if (t == t.getCause()) {
        break;
      }
    }
    return failure;
  }

  private static RuntimeException withCause(RuntimeException exception, Throwable cause) {
    exception.initCause(cause);
    return exception;
  }

  /** Throws {@code failure} as it is, checked or not. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T rethrow(Throwable failure) throws T {
    throw (T) failure;
  }

  private void describe(String format, Object... values) {
    spark.setLocalProperty(JOB_DESCRIPTION, "stoker: " + String.format(format, values));
  }
}
