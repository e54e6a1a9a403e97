package dev.stoker.spark.run;

import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a barrier job the way every rank stage must run: its tasks interrupted when the job or a
 * stage attempt is cancelled, whatever the caller's thread had set (a rank that fails then stops
 * the others at once, so a failed attempt's retry does not wait for a late rank), and, when it
 * fails, the failure thrown only once every task it started has ended, so that no rank is still
 * writing or holding its shard files when the caller sees the failure.
 */
final class BarrierJobs {
  private static final Logger LOG = LoggerFactory.getLogger(BarrierJobs.class);

  /** Spark's local property that has a cancelled job's tasks interrupted. */
  static final String INTERRUPT_ON_CANCEL = "spark.job.interruptOnCancel";

  /** The local property that tells this run's jobs from any other the application runs. */
  private static final String MARK = "stoker.barrier.job";

  /** How long a failed job's tasks get to end, once interrupted, before the failure is thrown. */
  static final long TASK_END_WAIT_MILLIS = 60_000;

  private BarrierJobs() {}

  /** Runs {@code job} on this thread with its tasks interrupted on cancel. */
  static <T> T run(SparkContext spark, Supplier<T> job) {
    String interrupt = spark.getLocalProperty(INTERRUPT_ON_CANCEL);
    String mark = spark.getLocalProperty(MARK);
    Tasks tasks = new Tasks(UUID.randomUUID().toString());
    spark.setLocalProperty(INTERRUPT_ON_CANCEL, "true");
    spark.setLocalProperty(MARK, tasks.mark);
    spark.addSparkListener(tasks);
    try {
      return job.get();
    } catch (Throwable e) { // Spark's SparkException too: checked, though Scala throws it freely
      if (!tasks.awaitEnded(TASK_END_WAIT_MILLIS)) {
        LOG.warn(
            "stoker: {} task(s) of the failed rank stage still running after {} ms; their "
                + "shard files go when they end",
            tasks.running(),
            TASK_END_WAIT_MILLIS);
      }
      throw BarrierJobs.<RuntimeException>sneaky(e);
    } finally {
      spark.removeSparkListener(tasks);
      spark.setLocalProperty(INTERRUPT_ON_CANCEL, interrupt);
      spark.setLocalProperty(MARK, mark);
    }
  }

  /** Throws {@code e} as it is, checked or not. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable e) throws E {
    throw (E) e;
  }

  /**
   * The marked jobs and the tasks of their stages that started and have not ended. Spark posts a
   * job's task starts before its end, and the end of its killed tasks after it; so once a job's end
   * has arrived here, no start of its tasks is still on the way, and the tasks counted are all
   * there are.
   */
  private static final class Tasks extends SparkListener {
    /** How long a failed job's start may take to arrive here before it counts as never run. */
    private static final long JOB_START_WAIT_MILLIS = 5_000;

    private final String mark;
    private final Set<Integer> jobs = new HashSet<>();
    private final Set<Integer> jobsEnded = new HashSet<>();
    private final Set<Integer> stages = new HashSet<>();
    private final Set<Long> running = new HashSet<>();

    Tasks(String mark) {
      this.mark = mark;
    }

    @Override
    public synchronized void onJobStart(SparkListenerJobStart start) {
      Properties properties = start.properties();
      if (properties != null && mark.equals(properties.getProperty(MARK))) {
        jobs.add(start.jobId());
        scala.collection.Iterator<Object> ids = start.stageIds().iterator();
        while (ids.hasNext()) {
          stages.add((Integer) ids.next());
        }
        notifyAll();
      }
    }

    @Override
    public synchronized void onJobEnd(SparkListenerJobEnd end) {
      if (jobs.contains(end.jobId())) {
        jobsEnded.add(end.jobId());
        notifyAll();
      }
    }

    @Override
    public synchronized void onTaskStart(SparkListenerTaskStart start) {
      if (stages.contains(start.stageId())) {
        running.add(start.taskInfo().taskId());
      }
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
      if (running.remove(end.taskInfo().taskId())) {
        notifyAll();
      }
    }

    synchronized int running() {
      return running.size();
    }

    /** Whether every marked job has ended and every task it started with it. */
    private boolean allEnded() {
      return !jobs.isEmpty() && jobsEnded.containsAll(jobs) && running.isEmpty();
    }

    /**
     * Waits up to {@code millis} for the marked jobs and every task they started to end; false if
     * some did not. A job whose start never arrives (it failed before Spark ran it) is waited for
     * {@link #JOB_START_WAIT_MILLIS} at most.
     */
    synchronized boolean awaitEnded(long millis) {
      long begin = System.nanoTime();
      long deadline = begin + millis * 1_000_000;
      long startDeadline = begin + JOB_START_WAIT_MILLIS * 1_000_000;
      while (!allEnded()) {
        long now = System.nanoTime();
        if (jobs.isEmpty() && now - startDeadline >= 0) {
          return true; // no job of the run started: no task to wait for
        }
        long left = (jobs.isEmpty() ? startDeadline : deadline) - now;
        if (left <= 0) {
          return false;
        }
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }
}
