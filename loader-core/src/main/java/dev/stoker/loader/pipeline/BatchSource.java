package dev.stoker.loader.pipeline;

import dev.stoker.loader.memory.HostMemory;

/** The batches of one epoch, handed to the consumer strictly in order. */
public interface BatchSource extends AutoCloseable {
  /**
   * The slot holding batch {@code batch}, which must be the next one in order. The caller owns
   * the slot and returns it with {@link #release(HostMemory)}.
   *
   * @throws BatchLoadException if the batch failed to load
   * @throws LoaderTimeoutException if it did not come within the timeout
   * @throws java.util.concurrent.CancellationException if the source was closed meanwhile
   */
  HostMemory next(int batch) throws InterruptedException;

  /** Batches filled and waiting for the consumer right now. */
  int ready();

  /** Returns a slot that {@link #next} handed out. */
  void release(HostMemory slot);

  /**
   * Cancels the work in flight, waits for the threads to stop and returns every slot they held.
   * Safe to call twice; slots handed out by {@link #next} stay with the caller.
   */
  @Override
  void close();
}
