package dev.stoker.loader.pipeline;

import java.util.function.BooleanSupplier;

/**
 * Lets workers take slots strictly in batch order and only within the prefetch window. Ordered
 * taking is what keeps a small memory budget from deadlocking: the lowest batch not yet filled
 * always gets the next free slot, so the batch the consumer waits for is never starved by batches
 * after it.
 */
final class FillWindow {
  private final int window;
  private int nextTurn;
  private int delivered;

  /** @param window batches that may be taken but not yet delivered to the consumer */
  FillWindow(int window) {
    this.window = window;
  }

  /**
   * Waits until it is {@code batch}'s turn and the window has room; false if cancelled first.
   * A caller that gets true must call {@link #pass()} once it has its slot (or gave up).
   */
  synchronized boolean awaitTurn(int batch, BooleanSupplier cancelled) throws InterruptedException {
    while (nextTurn != batch || batch >= delivered + window) {
      if (cancelled.getAsBoolean()) {
        return false;
      }
      wait();
    }
    return !cancelled.getAsBoolean();
  }

  /** Hands the turn to the next batch. */
  synchronized void pass() {
    nextTurn++;
    notifyAll();
  }

  /** One more batch reached the consumer: the window moves on. */
  synchronized void delivered() {
    delivered++;
    notifyAll();
  }

  synchronized void wake() {
    notifyAll();
  }
}
