package dev.stoker.tools.bench;

import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.metrics.WorkerMetrics;
import java.util.ArrayList;
import java.util.List;

/**
 * A loader's metrics over a window that may span epochs: the running epoch's snapshot at the start
 * is subtracted, and added are the last snapshot of every epoch the window touched. The result is
 * one {@link EpochMetrics} whose wall time is the window's, so a {@link
 * dev.stoker.loader.metrics.BottleneckReport} reads it as it reads an epoch.
 */
final class MetricsWindow {
  private final EpochMetrics first;
  private final long[] fillNanos;
  private final long[] windowWaitNanos;
  private final long[] workerBatches;
  private long batches;
  private long samples;
  private long consumerWaitNanos;
  private long consumerHoldNanos;
  private long slotWaitNanos;
  private double readySum;
  private long transferNanos;
  private long transferBatches;
  private long skipped;

  /** Starts the window on the snapshot of the epoch running now. */
  MetricsWindow(EpochMetrics start) {
    this.first = start;
    int workers = start.workers().size();
    this.fillNanos = new long[workers];
    this.windowWaitNanos = new long[workers];
    this.workerBatches = new long[workers];
    add(start, -1);
  }

  /** Adds the last snapshot of an epoch the window touched (the first one included). */
  void add(EpochMetrics epoch) {
    add(epoch, 1);
  }

  private void add(EpochMetrics m, int sign) {
    batches += sign * m.batches();
    samples += sign * m.samples();
    consumerWaitNanos += sign * m.consumerWaitNanos();
    consumerHoldNanos += sign * m.consumerHoldNanos();
    slotWaitNanos += sign * m.slotWaitNanos();
    readySum += sign * m.meanReadyBatches() * m.batches();
    transferNanos += sign * m.transferNanos();
    transferBatches += sign * m.transferBatches();
    skipped += sign * m.skippedCount();
    for (int i = 0; i < fillNanos.length && i < m.workers().size(); i++) {
      WorkerMetrics w = m.workers().get(i);
      fillNanos[i] += sign * w.fillNanos();
      windowWaitNanos[i] += sign * w.windowWaitNanos();
      workerBatches[i] += sign * w.batches();
    }
  }

  /** The window's metrics, over {@code wallNanos}. */
  EpochMetrics result(long wallNanos) {
    List<WorkerMetrics> workers = new ArrayList<>(fillNanos.length);
    for (int i = 0; i < fillNanos.length; i++) {
      workers.add(new WorkerMetrics(i, workerBatches[i], fillNanos[i], windowWaitNanos[i]));
    }
    return new EpochMetrics(
        first.epoch(),
        first.batchSize(),
        first.numWorkers(),
        first.prefetchWindow(),
        first.slotLimit(),
        batches,
        samples,
        wallNanos,
        consumerWaitNanos,
        consumerHoldNanos,
        slotWaitNanos,
        batches == 0 ? 0 : readySum / batches,
        transferNanos,
        transferBatches,
        List.copyOf(workers),
        skipped,
        List.of());
  }
}
