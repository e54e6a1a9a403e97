package dev.stoker.loader.pipeline;

import dev.stoker.loader.memory.HostMemory;

/** Writes one whole batch into a slot; called by one worker at a time per slot. */
@FunctionalInterface
public interface SlotFiller {
  /**
   * Fills batch {@code batch} of the epoch into {@code slot}, reporting progress in
   * {@code status}.
   *
   * @throws BatchLoadException when a sample cannot be loaded
   */
  void fill(HostMemory slot, int batch, WorkerStatus status) throws InterruptedException;
}
