package dev.stoker.spark.run;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.metrics.BottleneckReport;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.spark.ui.RankFigures;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.spark.TaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rank's watcher thread while its function runs: every {@code progressInterval} it adds the
 * batches delivered and the time waited since last time to the run's accumulators, and within a
 * tenth of a second of Spark killing the task (the barrier stage failed elsewhere) it closes the
 * loader, so that the function's next batch ends it. {@link #close()} stops and joins the thread
 * and counts what is left.
 */
public final class ProgressWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressWatcher.class);
  private static final long KILL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final DataLoader loader;
  private final ProgressCounters counters;
  private final TaskContext task;
  private final long intervalNanos;

  /** The rank's place and sizes, the figures this watcher fills in. */
  private final RankFigures place;

  /** The time the rank's reading waited for remote storage so far, in nanoseconds. */
  private final LongSupplier storageWait;

  private RankFigures last;
  private final LoaderTotals totals = new LoaderTotals();
  private final Thread thread;
  private long batchesAdded;
  private long waitAdded;
  private volatile boolean stopped;
  private volatile boolean killed;

  ProgressWatcher(
      String name,
      DataLoader loader,
      ProgressCounters counters,
      TaskContext task,
      long intervalNanos,
      RankFigures place,
      LongSupplier storageWait) {
    this.place = place;
    this.storageWait = storageWait;
    this.loader = loader;
    this.counters = counters;
    this.task = task;
    this.intervalNanos = intervalNanos;
    this.thread = new Thread(this::watch, name + "-watch");
    thread.setDaemon(true);
    thread.start();
  }

  private void watch() {
    long nextUpdate = System.nanoTime() + intervalNanos;
    while (!stopped) {
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(KILL_CHECK_NANOS, intervalNanos));
      } catch (InterruptedException e) {
        return; // close() stops us
      }
      if (task.isInterrupted() && !killed) {
        killed = true;
        LOG.info(
            "{}: task killed ({}); closing the loader",
            loader.name(),
            task.getKillReason().isDefined() ? task.getKillReason().get() : "no reason given");
        try {
          loader.close();
        } catch (RuntimeException e) {
          LOG.warn("{}: closing the loader of a killed task failed", loader.name(), e);
        }
      }
      if (System.nanoTime() - nextUpdate >= 0) {
        update(false);
        nextUpdate = System.nanoTime() + intervalNanos;
      }
    }
  }

  private synchronized void update(boolean ended) {
    totals.poll(loader.metrics(), ended);
    long batches = totals.batches();
    long wait = totals.waitMillis();
    if (batches > batchesAdded) {
      counters.batchesDelivered.add(batches - batchesAdded);
      batchesAdded = batches;
    }
    if (wait > waitAdded) {
      counters.waitMillis.add(wait - waitAdded);
      waitAdded = wait;
    }
    last = figures(ended);
    counters.figures.add(last);
  }

  /** The rank's figures now; {@code ended}: its last. */
  private RankFigures figures(boolean ended) {
    EpochMetrics epoch = totals.last();
    String verdict = null;
    String summary = null;
    if (epoch != null && epoch.batches() > 0) {
      BottleneckReport report = BottleneckReport.of(epoch);
      verdict = report.verdict().label();
      summary = report.summary();
    }
    RankFigures p = place;
    return new RankFigures(
        p.rank(),
        p.executorId(),
        p.host(),
        p.device(),
        p.gpu(),
        epoch == null ? 0 : epoch.epoch(),
        totals.batches(),
        p.batchesPerEpoch(),
        p.epochs(),
        totals.samples(),
        totals.samplesPerSecond(),
        totals.waitMillis(),
        totals.holdMillis(),
        epoch == null ? 0 : epoch.meanFillMillis(),
        epoch == null ? 0 : epoch.meanTransformMillis(),
        epoch == null ? 0 : epoch.meanTransferMillis(),
        epoch == null ? 0 : epoch.slotWaitFraction(),
        storageWait.getAsLong() / 1_000_000,
        p.numWorkers(),
        p.droppedRows(),
        totals.skippedSamples(),
        verdict,
        summary,
        ended);
  }

  /** The rank's last figures, final once {@link #close()} has returned; null before any. */
  synchronized RankFigures figures() {
    return last;
  }

  /** Whether the watcher closed the loader because Spark killed the task. */
  boolean killed() {
    return killed;
  }

  /** Totals over the loader's epochs, final once {@link #close()} has returned. */
  LoaderTotals totals() {
    return totals;
  }

  /** Stops and joins the thread; call after the loader is closed, for its final figures. */
  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    update(true);
  }
}
