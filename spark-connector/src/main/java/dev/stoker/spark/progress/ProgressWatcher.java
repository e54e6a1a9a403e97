package dev.stoker.spark.progress;

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

  /** The consumer's own wait and step time, or null: the loader's caller is the consumer. */
  private final ConsumerClock clock;

  private static final int NO_EPOCH = Integer.MIN_VALUE;

  /** The epoch the clock's times are counted in, and the clock's times at its start. */
  private int clockEpoch = NO_EPOCH;

  private long clockWaitAtEpoch;
  private long clockStepAtEpoch;

  private RankFigures last;
  private final LoaderTotals totals = new LoaderTotals();
  private final Thread thread;
  private long batchesAdded;
  private long waitAdded;
  private volatile boolean stopped;
  private volatile boolean killed;

  public ProgressWatcher(
      String name,
      DataLoader loader,
      ProgressCounters counters,
      TaskContext task,
      long intervalNanos,
      RankFigures place,
      LongSupplier storageWait) {
    this(name, loader, counters, task, intervalNanos, place, storageWait, null);
  }

  /**
   * A watcher whose rank's consumer is not the loader's caller, and tells its own wait and step
   * time through {@code clock}: Python, which gets the batches the loader's caller posts.
   */
  public ProgressWatcher(
      String name,
      DataLoader loader,
      ProgressCounters counters,
      TaskContext task,
      long intervalNanos,
      RankFigures place,
      LongSupplier storageWait,
      ConsumerClock clock) {
    this.clock = clock;
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
    long batches = batches();
    long wait = waitMillis();
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
      BottleneckReport report = BottleneckReport.of(judged(epoch));
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
        batches(),
        p.batchesPerEpoch(),
        p.epochs(),
        clock == null ? totals.samples() : clock.samples(),
        clock == null ? totals.samplesPerSecond() : clockSamplesPerSecond(),
        waitMillis(),
        clock == null ? totals.holdMillis() : clock.stepMillis(),
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

  /**
   * {@code epoch} as the verdict judges it: with a consumer clock, the consumer's own wait and step
   * time in this epoch (from the first poll that saw it) in place of the loader's caller's.
   */
  private EpochMetrics judged(EpochMetrics epoch) {
    if (clock == null) {
      return epoch;
    }
    if (epoch.epoch() != clockEpoch) {
      if (clockEpoch != NO_EPOCH) { // the first epoch counts from the start
        clockWaitAtEpoch = clock.waitMillis();
        clockStepAtEpoch = clock.stepMillis();
      }
      clockEpoch = epoch.epoch();
    }
    long millis = 1_000_000;
    return new EpochMetrics(
        epoch.epoch(),
        epoch.batchSize(),
        epoch.numWorkers(),
        epoch.prefetchWindow(),
        epoch.slotLimit(),
        epoch.batches(),
        epoch.samples(),
        epoch.wallNanos(),
        (clock.waitMillis() - clockWaitAtEpoch) * millis,
        (clock.stepMillis() - clockStepAtEpoch) * millis,
        epoch.slotWaitNanos(),
        epoch.meanReadyBatches(),
        epoch.transferNanos(),
        epoch.transferBatches(),
        epoch.workers(),
        epoch.skippedCount(),
        epoch.skipped(),
        epoch.transformNanos(),
        0);
  }

  /** The consumer's samples over its own time, waiting and stepping. */
  private double clockSamplesPerSecond() {
    long millis = clock.waitMillis() + clock.stepMillis();
    return millis <= 0 ? 0 : clock.samples() * 1000.0 / millis;
  }

  private long batches() {
    return clock == null ? totals.batches() : clock.batches();
  }

  private long waitMillis() {
    return clock == null ? totals.waitMillis() : clock.waitMillis();
  }

  /** The rank's last figures, final once {@link #close()} has returned; null before any. */
  public synchronized RankFigures figures() {
    return last;
  }

  /** Whether the watcher closed the loader because Spark killed the task. */
  public boolean killed() {
    return killed;
  }

  /** Totals over the loader's epochs, final once {@link #close()} has returned. */
  public LoaderTotals totals() {
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

  /**
   * A rank's consumer that counts for itself: the batches it took, its time waiting for them and
   * its time spent on them.
   */
  public interface ConsumerClock {
    /** Batches the consumer took so far, over all epochs. */
    long batches();

    /** Samples (rows) of those batches. */
    long samples();

    long waitMillis();

    long stepMillis();
  }
}
