package dev.stoker.loader.device;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The accounting a pinned allocator shares with its blocks and its device: bytes reserved against
 * the limit (until really freed) and bytes of blocks still open. The device's total moves with it.
 */
final class PinnedLedger {
  private final String name;
  private final long limit;
  private final AtomicLong device;
  private final AtomicLong reserved = new AtomicLong();
  private final AtomicLong open = new AtomicLong();

  PinnedLedger(String name, long limit, AtomicLong device) {
    if (limit <= 0) {
      throw new IllegalArgumentException(
          "allocator '" + name + "' limit: " + limit + " (expected: > 0)");
    }
    this.name = name;
    this.limit = limit;
    this.device = device;
  }

  long limit() {
    return limit;
  }

  long reserved() {
    return reserved.get();
  }

  long open() {
    return open.get();
  }

  /** Reserves {@code bytes} against the limit, or throws naming the allocator and the figures. */
  void reserve(long bytes) {
    long now;
    do {
      now = reserved.get();
      if (bytes > limit - now) {
        throw new OutOfMemoryError(
            String.format(
                "host allocator '%s': %d bytes requested with %d of its limit of %d in use; "
                    + "raise the limit (maxHostBytes) or use smaller batches",
                name, bytes, now, limit));
      }
    } while (!reserved.compareAndSet(now, now + bytes));
    open.addAndGet(bytes);
  }

  /** The block was allocated: it counts for the device from now on. */
  void allocated(long bytes) {
    device.addAndGet(bytes);
  }

  /** A block was closed by its owner (its memory may be freed later). */
  void closed(long bytes) {
    open.addAndGet(-bytes);
  }

  /** A block's memory was freed. */
  void freed(long bytes) {
    reserved.addAndGet(-bytes);
    device.addAndGet(-bytes);
  }

  /** Undoes a {@link #reserve} whose allocation failed. */
  void unreserve(long bytes) {
    open.addAndGet(-bytes);
    reserved.addAndGet(-bytes);
  }

  void checkNothingOpen() {
    long stillOpen = open.get();
    if (stillOpen > 0) {
      throw new IllegalStateException(
          String.format(
              "host allocator '%s': %d bytes still open on close (expected: every block closed "
                  + "first)",
              name, stillOpen));
    }
  }
}
