package dev.stoker.loader.metrics;

import java.util.List;
import java.util.Locale;

/**
 * What one epoch (or the part of it run so far) measured.
 *
 * @param prefetchWindow batches allowed in flight (numWorkers x prefetchFactor; 1 when loading in
 *     the caller's thread)
 * @param slotLimit host slots the memory budget allowed
 * @param wallNanos from the start of the epoch to its last delivered batch
 * @param consumerWaitNanos time the consumer spent waiting for the next batch
 * @param consumerHoldNanos time the consumer spent with a batch, between two requests
 * @param slotWaitNanos time the next batch in line waited for a free slot (slots are taken in batch
 *     order, so at most one worker waits at a time)
 * @param meanReadyBatches batches ready and waiting when the consumer took one, on average
 * @param transformNanos time the workers spent in a per-sample transform (decoding, augmenting),
 *     part of their fill time; 0 without one
 * @param transferNanos time the transfer thread had a copy to the device in flight (issued and not
 *     yet seen complete); two copies in flight at once count once
 * @param firstWaitNanos the part of {@code consumerWaitNanos} spent waiting for the first batch:
 *     start-up (threads, first reads, JIT), which {@code persistentWorkers} shortens; the steady
 *     state that the verdicts judge leaves it out
 */
public record EpochMetrics(
    int epoch,
    int batchSize,
    int numWorkers,
    int prefetchWindow,
    int slotLimit,
    long batches,
    long samples,
    long wallNanos,
    long consumerWaitNanos,
    long consumerHoldNanos,
    long slotWaitNanos,
    double meanReadyBatches,
    long transferNanos,
    long transferBatches,
    List<WorkerMetrics> workers,
    long skippedCount,
    List<SkippedSample> skipped,
    long transformNanos,
    long firstWaitNanos) {

  /** The metrics of an epoch without a per-sample transform or a separate first wait. */
  public EpochMetrics(
      int epoch,
      int batchSize,
      int numWorkers,
      int prefetchWindow,
      int slotLimit,
      long batches,
      long samples,
      long wallNanos,
      long consumerWaitNanos,
      long consumerHoldNanos,
      long slotWaitNanos,
      double meanReadyBatches,
      long transferNanos,
      long transferBatches,
      List<WorkerMetrics> workers,
      long skippedCount,
      List<SkippedSample> skipped) {
    this(
        epoch,
        batchSize,
        numWorkers,
        prefetchWindow,
        slotLimit,
        batches,
        samples,
        wallNanos,
        consumerWaitNanos,
        consumerHoldNanos,
        slotWaitNanos,
        meanReadyBatches,
        transferNanos,
        transferBatches,
        workers,
        skippedCount,
        skipped,
        0,
        0);
  }

  public double seconds() {
    return wallNanos / 1e9;
  }

  public double samplesPerSecond() {
    return wallNanos <= 0 ? 0 : samples / seconds();
  }

  /**
   * Share of the consumer's time spent waiting for data after the first batch: near 1 means the
   * pipeline is the limit. The wait for the first batch is start-up ({@link #firstBatchMillis}),
   * which would otherwise make a short epoch of a slow consumer look starved.
   */
  public double waitFraction() {
    long waited = Math.max(0, consumerWaitNanos - firstWaitNanos);
    long total = waited + consumerHoldNanos;
    return total <= 0 ? 0 : (double) waited / total;
  }

  /** How long the consumer waited for the epoch's first batch, in ms. */
  public double firstBatchMillis() {
    return firstWaitNanos / 1e6;
  }

  /** Busy fraction of each worker (or of the caller's thread, with numWorkers = 0). */
  public double[] workerBusy() {
    double[] busy = new double[workers.size()];
    for (int i = 0; i < busy.length; i++) {
      busy[i] = workers.get(i).busyFraction(wallNanos);
    }
    return busy;
  }

  /**
   * Share of the epoch in which the next batch in line waited for a free slot: the memory budget at
   * work. Slots are taken in batch order, so at most one worker waits at a time.
   */
  public double slotWaitFraction() {
    return wallNanos <= 0 ? 0 : Math.min(1.0, (double) slotWaitNanos / wallNanos);
  }

  public double meanFillMillis() {
    long fill = 0;
    long count = 0;
    for (WorkerMetrics w : workers) {
      fill += w.fillNanos();
      count += w.batches();
    }
    return count == 0 ? 0 : fill / 1e6 / count;
  }

  /** The per-sample transform's share of a batch's fill, in ms per batch; 0 without one. */
  public double meanTransformMillis() {
    long count = 0;
    for (WorkerMetrics w : workers) {
      count += w.batches();
    }
    return count == 0 ? 0 : transformNanos / 1e6 / count;
  }

  public double meanTransferMillis() {
    return transferBatches == 0 ? 0 : transferNanos / 1e6 / transferBatches;
  }

  @Override
  public String toString() {
    StringBuilder busy = new StringBuilder();
    for (double b : workerBusy()) {
      busy.append(busy.length() == 0 ? "" : ",")
          .append(String.format(Locale.ROOT, "%.0f%%", b * 100));
    }
    return String.format(
        Locale.ROOT,
        "epoch %d: %d batches, %.0f samples/s, first batch %.1f ms, consumer waited %.0f%%, "
            + "workers busy [%s], "
            + "fill %.2f ms/batch%s, transfer %.2f ms/batch, %.1f batches ready, %d skipped",
        epoch,
        batches,
        samplesPerSecond(),
        firstBatchMillis(),
        waitFraction() * 100,
        busy,
        meanFillMillis(),
        transformNanos == 0
            ? ""
            : String.format(Locale.ROOT, " (transform %.2f)", meanTransformMillis()),
        meanTransferMillis(),
        meanReadyBatches,
        skippedCount);
  }
}
