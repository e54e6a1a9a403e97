package dev.stoker.loader.memory;

import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool of equal host memory slots, each holding one whole batch, allocated on first use up to
 * {@code maxSlots} and kept until the pool is closed (allocating pinned memory is slow, so slots
 * are never freed and allocated again in between). {@link #acquire} blocks while every slot is out.
 * Closing the pool with slots still out is an error that names the pool and the count; those slots
 * are let go of as they come back. With the system property {@value #DEBUG_PROPERTY}{@code =true}
 * the error also shows where each one was taken.
 *
 * <p>Thread-safe. Waiting uses the pool's monitor, so neither taking nor returning a slot
 * allocates.
 */
public final class SlotPool implements AutoCloseable {
  /** System property that records where every slot was taken, for leak reports. */
  public static final String DEBUG_PROPERTY = "stoker.memory.debug";

  private static final boolean DEBUG = Boolean.getBoolean(DEBUG_PROPERTY);
  private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();
  private static final Logger LOG = LoggerFactory.getLogger(SlotPool.class);

  private final String name;
  private final HostAllocator allocator;
  private final int slotBytes;
  private final int minSlots;

  /** Slots the pool may have: {@code maxSlots}, or fewer once memory ran out. */
  private int limit;

  private final ArrayDeque<HostMemory> idle;
  private final Map<HostMemory, Throwable> takenAt = new IdentityHashMap<>();
  private int allocated;
  private int outstanding;
  private int peakOutstanding;
  private long waitNanos;
  private long waits;
  private boolean closed;

  /** Runs once the last slot out is back, after {@link #closeAfterReturns}; then null. */
  private Runnable whenAllBack;

  public SlotPool(String name, HostAllocator allocator, int slotBytes, int maxSlots) {
    this(name, allocator, slotBytes, maxSlots, maxSlots);
  }

  /**
   * A pool that, when memory runs out with at least {@code minSlots} slots allocated, goes on with
   * the slots it has (and says so once) instead of failing: fewer batches ahead, but no failure.
   */
  public SlotPool(String name, HostAllocator allocator, int slotBytes, int maxSlots, int minSlots) {
    if (slotBytes <= 0) {
      throw new IllegalArgumentException("slotBytes: " + slotBytes + " (expected: > 0)");
    }
    if (maxSlots <= 0) {
      throw new IllegalArgumentException("maxSlots: " + maxSlots + " (expected: > 0)");
    }
    this.name = name;
    this.allocator = allocator;
    this.slotBytes = slotBytes;
    if (minSlots <= 0 || minSlots > maxSlots) {
      throw new IllegalArgumentException(
          "minSlots: "
              + minSlots
              + " (expected: 0 < minSlots <= "
              + "maxSlots = "
              + maxSlots
              + ")");
    }
    this.limit = maxSlots;
    this.minSlots = minSlots;
    this.idle = new ArrayDeque<>(Math.min(maxSlots, 1024));
    if (DEBUG && ANNOUNCED.compareAndSet(false, true)) {
      LOG.info(
          "{}=true: recording where every slot is taken (slower; for leak hunting only)",
          DEBUG_PROPERTY);
    }
  }

  public String name() {
    return name;
  }

  public HostAllocator allocator() {
    return allocator;
  }

  public int slotBytes() {
    return slotBytes;
  }

  /** The most slots the pool has at once (fewer than asked for if memory ran out). */
  public synchronized int maxSlots() {
    return limit;
  }

  /**
   * Takes a slot, waiting while all {@code maxSlots} are out.
   *
   * @param cancelled polled whenever the wait wakes; see {@link #wakeWaiters()}
   * @return the slot, or {@code null} once {@code cancelled} is true
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws IllegalStateException if the pool is closed
   * @throws OutOfMemoryError if a new slot cannot be allocated; the pool stays as it was
   */
  public synchronized HostMemory acquire(BooleanSupplier cancelled) throws InterruptedException {
    long waitStart = 0;
    while (idle.isEmpty() && allocated >= limit && !closed && !cancelled.getAsBoolean()) {
      if (waitStart == 0) {
        waitStart = System.nanoTime();
        waits++;
      }
      wait();
    }
    if (waitStart != 0) {
      waitNanos += System.nanoTime() - waitStart;
    }
    if (closed) {
      throw new IllegalStateException("slot pool '" + name + "' is closed");
    }
    if (cancelled.getAsBoolean()) {
      return null;
    }
    HostMemory slot = idle.isEmpty() ? allocateSlot() : idle.pop();
    if (slot == null) {
      return acquire(cancelled); // memory ran out: the pool goes on with the slots it has
    }
    outstanding++;
    peakOutstanding = Math.max(peakOutstanding, outstanding);
    if (DEBUG) {
      takenAt.put(slot, new Throwable("slot taken from pool '" + name + "' here"));
    }
    return slot;
  }

  /** A new slot, or null if memory ran out with enough slots to go on with (the limit drops). */
  private HostMemory allocateSlot() {
    HostMemory slot;
    try {
      slot = allocator.allocate(slotBytes);
    } catch (OutOfMemoryError e) {
      if (allocated < minSlots) {
        throw e;
      }
      limit = allocated;
      LOG.warn(
          "slot pool '{}': host memory ran out at {} slots of {} bytes ({}); going on with "
              + "{} slots (fewer batches ahead; raise the memory available or lower maxHostBytes to "
              + "silence this)",
          name,
          allocated + 1,
          slotBytes,
          e.getMessage(),
          allocated);
      return null;
    }
    allocated++;
    return slot;
  }

  /**
   * Returns a slot taken from this pool. After {@link #close()} the slot is freed instead.
   *
   * @throws IllegalStateException if the slot was already returned (it is idle or freed): taken
   *     again, it would be handed to two users at once
   */
  public void release(HostMemory slot) {
    Runnable lastBack = null;
    synchronized (this) {
      if (outstanding == 0 || slot.isClosed() || idle.contains(slot)) {
        throw new IllegalStateException("slot pool '" + name + "': a slot was returned twice");
      }
      outstanding--;
      if (DEBUG) {
        takenAt.remove(slot);
      }
      if (closed) {
        slot.close(); // freed now, or once no view of it is reachable
        allocated--;
        if (outstanding == 0) {
          lastBack = whenAllBack;
          whenAllBack = null;
        }
      } else {
        idle.push(slot);
        notifyAll();
      }
    }
    if (lastBack != null) {
      runQuietly(lastBack);
    }
  }

  private void runQuietly(Runnable action) {
    try {
      action.run();
    } catch (Throwable t) {
      LOG.warn("slot pool '{}': the action after the last slot came back failed", name, t);
    }
  }

  /** Wakes every waiting {@link #acquire} so that it checks its cancellation. */
  public synchronized void wakeWaiters() {
    notifyAll();
  }

  public synchronized int outstanding() {
    return outstanding;
  }

  public synchronized int allocated() {
    return allocated;
  }

  public synchronized int peakOutstanding() {
    return peakOutstanding;
  }

  /** Total time callers of {@link #acquire} waited because every slot was out. */
  public synchronized long waitNanos() {
    return waitNanos;
  }

  /** How many calls of {@link #acquire} had to wait. */
  public synchronized long waits() {
    return waits;
  }

  /**
   * Frees every slot. Safe to call twice.
   *
   * @throws IllegalStateException if slots are still out; they are freed when they come back
   */
  @Override
  public synchronized void close() {
    if (!closeIdle()) {
      return;
    }
    if (outstanding > 0) {
      IllegalStateException leak =
          new IllegalStateException(
              String.format(
                  "slot pool '%s': %d slot(s) (%d bytes) still out on close; they are let go of "
                      + "when they come back%s",
                  name,
                  outstanding,
                  (long) outstanding * slotBytes,
                  DEBUG ? "" : "; set -D" + DEBUG_PROPERTY + "=true to see where they were taken"));
      takenAt.values().forEach(leak::addSuppressed);
      throw leak;
    }
  }

  /**
   * Closes the pool like {@link #close()}, except that the slots still out are no leak: threads
   * still inside dataset code hold them, and give them back when they return. Each is freed as it
   * comes back; {@code whenAllBack} runs once none is out (at once if none is), in the thread that
   * gave the last one back; what it throws is logged. Does nothing on a closed pool.
   */
  public void closeAfterReturns(Runnable whenAllBack) {
    synchronized (this) {
      if (!closeIdle()) {
        return;
      }
      if (outstanding > 0) {
        this.whenAllBack = whenAllBack;
        return;
      }
    }
    runQuietly(whenAllBack);
  }

  /** Marks the pool closed and frees the idle slots; false if it was closed already. */
  private boolean closeIdle() {
    if (closed) {
      return false;
    }
    closed = true;
    while (!idle.isEmpty()) {
      idle.pop().close();
      allocated--;
    }
    notifyAll();
    return true;
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  @Override
  public synchronized String toString() {
    return String.format(
        "SlotPool[%s, %s, %d x %d bytes, %d out, %d allocated]",
        name, allocator.name(), limit, slotBytes, outstanding, allocated);
  }
}
