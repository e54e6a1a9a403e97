package dev.stoker.loader.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The live counters of one epoch. The consumer's fields are written by the consumer thread, each
 * worker's by that worker, the transfer fields by the transfer thread; {@link #snapshot} may be
 * taken at any time.
 */
public final class EpochCounters {
  /** How many skipped samples are kept with their reasons; the count goes on past it. */
  public static final int SKIPPED_KEPT = 100;

  private final int epoch;
  private final int batchSize;
  private final int numWorkers;
  private final int prefetchWindow;
  private final int slotLimit;
  private final long startNanos = System.nanoTime();
  private final WorkerCounters[] workers;
  private final LongSupplier slotWaitClock;
  private final long slotWaitAtStart;
  private volatile long endNanos;
  private volatile long consumerWaitNanos;
  private volatile long firstWaitNanos;
  private volatile long consumerHoldNanos;
  private volatile long batches;
  private volatile long samples;
  private volatile long queueDepthSum;
  private volatile long transferNanos;
  private volatile long transferBatches;
  private final LongAdder transformNanos = new LongAdder();
  private final AtomicLong skippedCount = new AtomicLong();
  private final List<SkippedSample> skipped = new ArrayList<>();

  /**
   * @param prefetchWindow batches that may be in flight at once (numWorkers x prefetchFactor)
   * @param slotLimit slots the memory budget allows for those
   * @param slotWaitClock total nanoseconds callers have waited for a free slot in the pool
   */
  public EpochCounters(
      int epoch,
      int batchSize,
      int numWorkers,
      int prefetchWindow,
      int slotLimit,
      LongSupplier slotWaitClock) {
    this.epoch = epoch;
    this.batchSize = batchSize;
    this.numWorkers = numWorkers;
    this.prefetchWindow = prefetchWindow;
    this.slotLimit = slotLimit;
    this.slotWaitClock = slotWaitClock;
    this.slotWaitAtStart = slotWaitClock.getAsLong();
    this.workers = new WorkerCounters[Math.max(1, numWorkers)];
    for (int i = 0; i < workers.length; i++) {
      workers[i] = new WorkerCounters();
    }
  }

  public int epoch() {
    return epoch;
  }

  /** Worker {@code index}'s counters; with numWorkers = 0, index 0 is the caller's thread. */
  public WorkerCounters worker(int index) {
    return workers[index];
  }

  /** The consumer waited {@code nanos} for a batch (the first of the epoch when none came yet). */
  public void addConsumerWait(long nanos) {
    if (batches == 0) {
      firstWaitNanos += nanos;
    }
    consumerWaitNanos += nanos;
  }

  /** The consumer held the previous batch for {@code nanos} before asking for the next one. */
  public void addConsumerHold(long nanos) {
    consumerHoldNanos += nanos;
  }

  /** A batch of {@code rows} rows reached the consumer, with {@code readyBehind} more ready. */
  public void addDelivered(int rows, int readyBehind) {
    batches++;
    samples += rows;
    queueDepthSum += readyBehind;
    endNanos = System.nanoTime();
  }

  public void addTransfer(long nanos) {
    transferNanos += nanos;
    transferBatches++;
  }

  /**
   * Workers spent {@code nanos} in a per-sample transform (part of their fill time); thread-safe.
   */
  public void addTransform(long nanos) {
    transformNanos.add(nanos);
  }

  /** Records a skipped sample; thread-safe. */
  public void addSkipped(SkippedSample sample) {
    if (skippedCount.incrementAndGet() <= SKIPPED_KEPT) {
      synchronized (skipped) {
        skipped.add(sample);
      }
    }
  }

  public long skippedCount() {
    return skippedCount.get();
  }

  /** An immutable copy of the counters so far. */
  public EpochMetrics snapshot() {
    long end = batches == 0 ? System.nanoTime() : endNanos;
    WorkerMetrics[] perWorker = new WorkerMetrics[workers.length];
    for (int i = 0; i < workers.length; i++) {
      WorkerCounters w = workers[i];
      perWorker[i] = new WorkerMetrics(i, w.batches(), w.fillNanos(), w.windowWaitNanos());
    }
    List<SkippedSample> kept;
    synchronized (skipped) {
      kept = List.copyOf(skipped);
    }
    return new EpochMetrics(
        epoch,
        batchSize,
        numWorkers,
        prefetchWindow,
        slotLimit,
        batches,
        samples,
        end - startNanos,
        consumerWaitNanos,
        consumerHoldNanos,
        slotWaitClock.getAsLong() - slotWaitAtStart,
        batches == 0 ? 0 : (double) queueDepthSum / batches,
        transferNanos,
        transferBatches,
        List.of(perWorker),
        skippedCount.get(),
        kept,
        transformNanos.sum(),
        firstWaitNanos);
  }
}
