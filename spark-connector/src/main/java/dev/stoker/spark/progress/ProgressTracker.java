package dev.stoker.spark.progress;

import dev.stoker.spark.cluster.ScalaSeqs;
import dev.stoker.spark.ui.RankFigures;
import dev.stoker.spark.ui.RunEvents;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import scala.Tuple4;

/**
 * The driver's view of the ranks' progress while they run: a listener that reads the run's
 * accumulators in the executors' heartbeats and at each task's end, and hands them to the user's
 * callback per rank, on Spark's listener thread, and the ranks' figures to the run's Stoker events.
 * The callback must not throw (a run's wraps the user's, logging what it throws).
 */
public final class ProgressTracker extends SparkListener {
  private final ProgressCounters counters;
  private final Set<Long> ids;

  /** Null when the run has none. */
  private final Progress callback;

  private final RunEvents events;

  /** Task id to partition, for the tasks running now. */
  private final Map<Long, Integer> partitions = new ConcurrentHashMap<>();

  /** Executor id to its host, from the tasks seen. */
  private final Map<String, String> hosts = new ConcurrentHashMap<>();

  public ProgressTracker(ProgressCounters counters, Progress callback, RunEvents events) {
    this.counters = counters;
    this.ids = counters.ids();
    this.callback = callback;
    this.events = events;
  }

  @Override
  public void onTaskStart(SparkListenerTaskStart start) {
    partitions.put(start.taskInfo().taskId(), start.taskInfo().partitionId());
    hosts.put(start.taskInfo().executorId(), start.taskInfo().host());
  }

  /** {@code figures} with the host of the executor the rank ran on. */
  public RankFigures placed(RankFigures figures) {
    return figures.executorId() == null
        ? figures
        : figures.at(figures.executorId(), hosts.get(figures.executorId()));
  }

  @Override
  public void onExecutorMetricsUpdate(SparkListenerExecutorMetricsUpdate metrics) {
    for (Object update : ScalaSeqs.call(metrics, "accumUpdates")) {
      Tuple4<?, ?, ?, ?> task = (Tuple4<?, ?, ?, ?>) update;
      Integer partition = partitions.get((Long) task._1());
      if (partition != null) {
        report(partition, ScalaSeqs.elements(task._4()), false);
      }
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    Integer partition = partitions.remove(end.taskInfo().taskId());
    if (partition != null) {
      report(partition, ScalaSeqs.call(end.taskInfo(), "accumulables"), true);
    }
  }

  private void report(int partition, List<Object> infos, boolean finished) {
    long rows = -1;
    long batches = -1;
    long wait = -1;
    RankFigures figures = null;
    for (Object each : infos) {
      AccumulableInfo info = (AccumulableInfo) each;
      if (!ids.contains(info.id()) || info.update().isEmpty()) {
        continue;
      }
      if (info.id() == counters.figures.id()) {
        figures = (RankFigures) info.update().get();
        continue;
      }
      long value = ((Number) info.update().get()).longValue();
      if (info.id() == counters.rowsLoaded.id()) {
        rows = value;
      } else if (info.id() == counters.batchesDelivered.id()) {
        batches = value;
      } else if (info.id() == counters.waitMillis.id()) {
        wait = value;
      }
    }
    if (figures != null && events != null) {
      events.rank(placed(figures));
    }
    if (callback == null || (rows < 0 && batches < 0 && wait < 0)) {
      return; // not a task of this run, or nothing counted yet
    }
    callback.progress(
        partition, Math.max(0, rows), Math.max(0, batches), Math.max(0, wait), finished);
  }

  /** What a run's callback gets: a rank's counts so far. */
  @FunctionalInterface
  public interface Progress {
    void progress(int rank, long rowsLoaded, long batches, long waitMillis, boolean finished);
  }
}
