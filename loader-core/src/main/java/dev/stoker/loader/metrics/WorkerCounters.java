package dev.stoker.loader.metrics;

/**
 * Time one worker spent in each state during an epoch. Written by that worker only (so plain
 * increments of volatile fields are safe), read by anyone.
 */
public final class WorkerCounters {
  private volatile long fillNanos;
  private volatile long windowWaitNanos;
  private volatile long batches;

  /** Time spent writing samples into slots. */
  public void addFill(long nanos) {
    fillNanos += nanos;
    batches++;
  }

  /** Time spent waiting because the prefetch window was full (the consumer is behind). */
  public void addWindowWait(long nanos) {
    windowWaitNanos += nanos;
  }

  public long fillNanos() {
    return fillNanos;
  }

  public long windowWaitNanos() {
    return windowWaitNanos;
  }

  public long batches() {
    return batches;
  }
}
