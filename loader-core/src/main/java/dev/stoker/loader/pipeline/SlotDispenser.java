package dev.stoker.loader.pipeline;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SlotPool;
import java.util.function.BooleanSupplier;

/**
 * Hands the workers their slots strictly in batch order and only within the prefetch window.
 * Ordered taking is what keeps a small memory budget from deadlocking: the lowest batch without a
 * slot always gets the next free one, so the batch the consumer waits for is never starved by
 * batches after it. Slots are reserved, not waited for: a worker that is ahead takes the slots of
 * the batches before its own and leaves them for their workers, so no worker waits for another to
 * come round to its turn.
 */
final class SlotDispenser {
  private final SlotPool pool;
  private final int window;

  /**
   * Reserved and not yet picked up, by {@code batch % window}: a slot or its allocation failure.
   */
  private final Object[] parked;

  private int delivered;
  private int nextToReserve;
  private boolean reserving;

  /**
   * @param window batches that may have a slot but not yet be handed on
   */
  SlotDispenser(SlotPool pool, int window) {
    this.pool = pool;
    this.window = window;
    this.parked = new Object[window];
  }

  /**
   * The slot of {@code batch}, or what allocating it threw, or null if cancelled first.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  Object acquire(int batch, BooleanSupplier cancelled, WorkerStatus status)
      throws InterruptedException {
    while (true) {
      int target;
      synchronized (this) {
        while (true) {
          if (cancelled.getAsBoolean()) {
            return null;
          }
          if (batch < nextToReserve) {
            Object reserved = parked[batch % window];
            parked[batch % window] = null;
            return reserved;
          }
          if (!reserving && nextToReserve < delivered + window) {
            break;
          }
          wait();
        }
        reserving = true;
        target = nextToReserve;
      }
      status.enter(WorkerStatus.State.WAITING_FOR_SLOT, batch);
      Object slot;
      try {
        slot = pool.acquire(cancelled);
      } catch (InterruptedException e) {
        done();
        throw e;
      } catch (Throwable t) {
        slot = t; // the failure belongs to the batch the slot was for
      }
      synchronized (this) {
        reserving = false;
        notifyAll();
        if (slot == null) {
          return null;
        }
        if (cancelled.getAsBoolean() && target != batch) {
          if (slot instanceof HostMemory memory) {
            pool.release(memory); // nobody will come for it
          }
          return null;
        }
        nextToReserve++;
        if (target == batch) {
          return slot;
        }
        parked[target % window] = slot;
      }
      status.enter(WorkerStatus.State.WAITING_FOR_WINDOW, batch);
    }
  }

  private synchronized void done() {
    reserving = false;
    notifyAll();
  }

  /** One more batch reached the next stage: the window moves on. */
  synchronized void delivered() {
    delivered++;
    notifyAll();
  }

  synchronized void wake() {
    notifyAll();
  }

  /** After cancelling: gives back the slots reserved for batches whose workers never came. */
  synchronized void drain() {
    for (int i = 0; i < parked.length; i++) {
      if (parked[i] instanceof HostMemory slot) {
        pool.release(slot);
      }
      parked[i] = null;
    }
  }
}
