package dev.stoker.loader.pipeline;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A bounded FIFO ring between one producer and one consumer, on the object's monitor so that
 * neither side allocates. Both sides give up when their cancellation check turns true after {@link
 * #wake()}.
 */
final class BatchQueue {
  private final Object[] ring;
  private int head;
  private int count;

  BatchQueue(int capacity) {
    this.ring = new Object[capacity];
  }

  /** Appends {@code item}, waiting for room; false if cancelled first. */
  synchronized boolean put(Object item, BooleanSupplier cancelled) throws InterruptedException {
    while (count == ring.length) {
      if (cancelled.getAsBoolean()) {
        return false;
      }
      wait();
    }
    if (cancelled.getAsBoolean()) {
      return false;
    }
    ring[(head + count) % ring.length] = item;
    count++;
    notifyAll();
    return true;
  }

  /**
   * Takes the oldest item, waiting at most {@code timeoutNanos} (0: without a limit); {@code null}
   * if cancelled or past the limit first.
   */
  synchronized Object take(long timeoutNanos, BooleanSupplier cancelled)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (count == 0) {
      if (cancelled.getAsBoolean()) {
        return null;
      }
      if (timeoutNanos == 0) {
        wait();
        continue;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      wait(left / 1_000_000, (int) (left % 1_000_000));
    }
    Object item = ring[head];
    ring[head] = null;
    head = (head + 1) % ring.length;
    count--;
    notifyAll();
    return item;
  }

  /** Takes the oldest item without waiting; null if there is none. */
  synchronized Object poll() {
    if (count == 0) {
      return null;
    }
    Object item = ring[head];
    ring[head] = null;
    head = (head + 1) % ring.length;
    count--;
    notifyAll();
    return item;
  }

  /** Wakes both sides so that they check their cancellation. */
  synchronized void wake() {
    notifyAll();
  }

  /** Removes every item, handing each to {@code sink}. */
  synchronized void drain(Consumer<Object> sink) {
    while (count > 0) {
      Object item = ring[head];
      ring[head] = null;
      head = (head + 1) % ring.length;
      count--;
      sink.accept(item);
    }
    notifyAll();
  }

  synchronized int size() {
    return count;
  }
}
