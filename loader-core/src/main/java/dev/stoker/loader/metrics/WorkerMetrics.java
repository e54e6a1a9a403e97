package dev.stoker.loader.metrics;

/** One worker's share of an epoch. */
public record WorkerMetrics(int worker, long batches, long fillNanos, long windowWaitNanos) {

  /** Fraction of {@code wallNanos} this worker spent filling batches. */
  public double busyFraction(long wallNanos) {
    return wallNanos <= 0 ? 0 : Math.min(1.0, (double) fillNanos / wallNanos);
  }
}
