package dev.stoker.loader.pipeline;

import java.util.Locale;

/**
 * What one loading thread is doing now, published for timeout and hang reports. Written by its
 * thread with plain volatile stores (no allocation), read by anyone.
 */
public final class WorkerStatus {
  /** A worker's states. */
  public enum State {
    IDLE("idle"),
    WAITING_FOR_WINDOW("waiting for the consumer (prefetch window full)"),
    WAITING_FOR_SLOT("waiting for a free slot (memory budget)"),
    FILLING("filling"),
    WAITING_FOR_BATCH("waiting for the filled batch"),
    COPYING("copying to the device"),
    HANDING_OVER("handing the batch over");

    private final String text;

    State(String text) {
      this.text = text;
    }
  }

  private final String threadName;
  private volatile State state = State.IDLE;
  private volatile int batch = -1;
  private volatile int row = -1;
  private volatile int sampleIndex = -1;
  private volatile int batchLength;
  private volatile long sinceNanos = System.nanoTime();

  public WorkerStatus(String threadName) {
    this.threadName = threadName;
  }

  /** Enters {@code state} for {@code batch}. */
  public void enter(State state, int batch) {
    this.state = state;
    this.batch = batch;
    this.row = -1;
    this.sampleIndex = -1;
    this.sinceNanos = System.nanoTime();
  }

  /** Starts filling {@code batch} of {@code length} rows. */
  public void filling(int batch, int length) {
    this.batchLength = length;
    enter(State.FILLING, batch);
  }

  /** Marks the sample being written now. */
  public void sample(int row, int sampleIndex) {
    this.row = row;
    this.sampleIndex = sampleIndex;
  }

  public void idle() {
    enter(State.IDLE, -1);
  }

  public String threadName() {
    return threadName;
  }

  public State state() {
    return state;
  }

  public int batch() {
    return batch;
  }

  /**
   * One line for error messages, e.g. {@code stoker-1-worker-0: filling batch 7, row 3 of 64
   * (sample 4711) for 5012 ms}.
   */
  public String describe() {
    State s = state;
    long ms = (System.nanoTime() - sinceNanos) / 1_000_000;
    StringBuilder text = new StringBuilder(threadName).append(": ").append(s.text);
    if (s != State.IDLE) {
      text.append(" batch ").append(batch);
    }
    if (s == State.FILLING && row >= 0) {
      text.append(
          String.format(Locale.ROOT, ", row %d of %d (sample %d)", row, batchLength, sampleIndex));
    }
    return text.append(" for ").append(ms).append(" ms").toString();
  }

  @Override
  public String toString() {
    return describe();
  }
}
