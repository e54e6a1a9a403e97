package dev.stoker.spark.run;

import dev.stoker.spark.RankProgress;
import dev.stoker.spark.run.balance.ScalaSeqs;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple4;

/**
 * The driver's view of the ranks' progress while they run: a listener that reads the run's
 * accumulators in the executors' heartbeats and at each task's end, and hands them to the user's
 * callback per rank, on Spark's listener thread. A failing callback is logged, never rethrown.
 */
public final class ProgressTracker extends SparkListener {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressTracker.class);

  private final ProgressCounters counters;
  private final Set<Long> ids;
  private final Consumer<RankProgress> callback;
  /** Task id to partition, for the tasks running now. */
  private final Map<Long, Integer> partitions = new ConcurrentHashMap<>();

  ProgressTracker(ProgressCounters counters, Consumer<RankProgress> callback) {
    this.counters = counters;
    this.ids = counters.ids();
    this.callback = callback;
  }

  @Override
  public void onTaskStart(SparkListenerTaskStart start) {
    partitions.put(start.taskInfo().taskId(), start.taskInfo().partitionId());
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
    for (Object each : infos) {
      AccumulableInfo info = (AccumulableInfo) each;
      if (!ids.contains(info.id()) || info.update().isEmpty()) {
        continue;
      }
      long value = ((Number) info.update().get()).longValue();
      if (info.id() == counters.rowsLoaded.id()) {
        rows = value;
      } else if (info.id() == counters.batchesDelivered.id()) {
        batches = value;
      } else {
        wait = value;
      }
    }
    if (rows < 0 && batches < 0 && wait < 0) {
      return; // not a task of this run, or nothing counted yet
    }
    try {
      callback.accept(new RankProgress(partition, Math.max(0, rows), Math.max(0, batches),
          Math.max(0, wait), finished));
    } catch (RuntimeException e) {
      LOG.warn("stoker: the progress callback failed for rank {}", partition, e);
    }
  }
}
