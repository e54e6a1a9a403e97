package dev.stoker.spark.python;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.cluster.ScalaSeqs;
import dev.stoker.spark.progress.ProgressCounters;
import dev.stoker.spark.progress.ProgressTracker;
import dev.stoker.spark.ui.RunEvents;
import dev.stoker.spark.ui.StokerRunStart;
import dev.stoker.spark.ui.StokerUi;
import java.util.List;
import java.util.UUID;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.storage.RDDInfo;
import org.slf4j.LoggerFactory;

/**
 * The Python ranks of one read on the Stoker page: the driver's listener that sees the barrier
 * stage over the read's handle rows begin (a stage whose lineage holds their RDD), lists it as a
 * run, hands the ranks' figures from the heartbeats to it, and ends it with the stage. Each attempt
 * of the stage is a run of its own; the listener leaves after a stage that succeeded (the handle
 * rows are spent) and when the job over them ends, however it ended, so that a failed read leaves
 * no listener behind.
 */
final class PythonRun extends SparkListener {
  private final SparkContext spark;
  private final int handleRdd;
  private final String description;
  private final int worldSize;
  private final LoaderOptions options;
  private final ProgressCounters counters;

  /** The run under way: its stage, its events and its tracker; null between runs. */
  private volatile Active active;

  /** The job whose stages read the handle rows, once it started; -1 before. */
  private volatile int jobId = -1;

  private record Active(int stageId, RunEvents events, ProgressTracker tracker) {}

  private PythonRun(
      SparkContext spark,
      int handleRdd,
      String description,
      int worldSize,
      LoaderOptions options,
      ProgressCounters counters) {
    this.spark = spark;
    this.handleRdd = handleRdd;
    this.description = description;
    this.worldSize = worldSize;
    this.options = options;
    this.counters = counters;
  }

  /** Watches for stages over the handle rows of RDD {@code handleRdd}. */
  static void watch(
      SparkContext spark,
      int handleRdd,
      String description,
      int worldSize,
      LoaderOptions options,
      ProgressCounters counters) {
    spark.addSparkListener(
        new PythonRun(spark, handleRdd, description, worldSize, options, counters));
  }

  @Override
  public void onJobStart(SparkListenerJobStart start) {
    if (jobId < 0) {
      for (Object stage : ScalaSeqs.call(start, "stageInfos")) {
        if (holdsHandles((StageInfo) stage)) {
          jobId = start.jobId();
          return;
        }
      }
    }
  }

  @Override
  public void onJobEnd(SparkListenerJobEnd end) {
    if (end.jobId() != jobId) {
      return;
    }
    Active run = active;
    active = null;
    if (run != null) {
      // a stage the job left unfinished (its end did not come first)
      run.events().ended("the job over the read ended: " + end.jobResult(), List.of());
    }
    spark.removeSparkListener(this);
  }

  @Override
  public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
    StageInfo stage = submitted.stageInfo();
    if (active != null || !holdsHandles(stage)) {
      return;
    }
    try {
      RunEvents events =
          StokerUi.of(spark)
              .run(
                  spark,
                  new StokerRunStart(
                      UUID.randomUUID().toString().substring(0, 8),
                      System.currentTimeMillis(),
                      description,
                      worldSize,
                      options.batchSize(),
                      options.numWorkers(),
                      options.prefetchFactor()));
      active = new Active(stage.stageId(), events, new ProgressTracker(counters, null, events));
    } catch (RuntimeException | LinkageError e) {
      LoggerFactory.getLogger(PythonRun.class)
          .warn("stoker: the Stoker page cannot list the Python ranks of {}: {}", description, e);
    }
  }

  private boolean holdsHandles(StageInfo stage) {
    for (Object rdd : ScalaSeqs.call(stage, "rddInfos")) {
      if (((RDDInfo) rdd).id() == handleRdd) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void onTaskStart(SparkListenerTaskStart start) {
    Active run = active;
    if (run != null && start.stageId() == run.stageId()) {
      run.tracker().onTaskStart(start);
    }
  }

  @Override
  public void onExecutorMetricsUpdate(SparkListenerExecutorMetricsUpdate metrics) {
    Active run = active;
    if (run != null) {
      run.tracker().onExecutorMetricsUpdate(metrics);
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    Active run = active;
    if (run != null && end.stageId() == run.stageId()) {
      run.tracker().onTaskEnd(end);
    }
  }

  @Override
  public void onStageCompleted(SparkListenerStageCompleted completed) {
    Active run = active;
    StageInfo stage = completed.stageInfo();
    if (run == null || stage.stageId() != run.stageId()) {
      return;
    }
    active = null;
    String failure = stage.failureReason().isDefined() ? stage.failureReason().get() : null;
    run.events().ended(failure, List.of());
    if (failure == null) {
      spark.removeSparkListener(this);
    }
  }
}
