package dev.stoker.loader.memory;

import java.nio.ByteBuffer;

/**
 * Host memory from direct byte buffers, counted against {@code -XX:MaxDirectMemorySize} and this
 * allocator's own limit. A block closed without ever being viewed is freed at once; one that was
 * viewed is freed by the garbage collector once its last view is unreachable.
 */
public final class DirectAllocator implements HostAllocator {
  /** A shared allocator without a limit of its own; closing it does nothing. */
  public static final DirectAllocator INSTANCE =
      new DirectAllocator("direct", Long.MAX_VALUE, true);

  private static final int ALIGNMENT = 64;

  /** The largest block: its aligned buffer must fit in an int. */
  public static final int MAX_BLOCK = Integer.MAX_VALUE - ALIGNMENT;

  private final String name;
  private final AllocationLedger ledger;
  private final boolean shared;
  private volatile boolean closed;

  /** An allocator named {@code name} that has at most {@code limit} bytes out at once. */
  public DirectAllocator(String name, long limit) {
    this(name, limit, false);
  }

  private DirectAllocator(String name, long limit, boolean shared) {
    this.name = name;
    this.ledger = new AllocationLedger(name, limit);
    this.shared = shared;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean pinned() {
    return false;
  }

  @Override
  public long limit() {
    return ledger.limit();
  }

  @Override
  public long allocatedBytes() {
    return ledger.reserved();
  }

  /** Bytes of blocks not yet closed by their owner. */
  public long openBytes() {
    return ledger.open();
  }

  @Override
  public HostMemory allocate(int bytes) {
    if (bytes <= 0 || bytes > MAX_BLOCK) {
      throw new IllegalArgumentException(
          "bytes: " + bytes + " (expected: 0 < bytes <= " + MAX_BLOCK + ")");
    }
    if (closed) {
      throw new IllegalStateException("host allocator '" + name + "' is closed");
    }
    ledger.reserve(bytes);
    ByteBuffer raw;
    try {
      raw = ByteBuffer.allocateDirect(bytes + ALIGNMENT);
    } catch (OutOfMemoryError e) {
      ledger.unreserve(bytes);
      OutOfMemoryError clear =
          new OutOfMemoryError(
              String.format(
                  "host allocator '%s': direct memory for a block of %d bytes: %s (raise "
                      + "-XX:MaxDirectMemorySize or lower maxHostBytes)",
                  name, bytes, e.getMessage()));
      clear.initCause(e);
      throw clear;
    }
    // Skip to the first aligned address and take exactly `bytes` from there. (alignedSlice would
    // also round the end down, leaving fewer than `bytes` unless bytes is a multiple of 64.)
    int skip = (ALIGNMENT - raw.alignmentOffset(0, ALIGNMENT)) % ALIGNMENT;
    return new DirectMemory(raw, raw.slice(skip, bytes), ledger);
  }

  @Override
  public void close() {
    if (shared || closed) {
      return;
    }
    closed = true;
    ledger.checkNothingOpen();
  }

  @Override
  public String toString() {
    return String.format(
        "DirectAllocator[%s, %d of %d bytes allocated]", name, ledger.reserved(), ledger.limit());
  }

  private static final class DirectMemory extends HostMemory {
    private final ByteBuffer raw;
    private final AllocationLedger ledger;

    DirectMemory(ByteBuffer raw, ByteBuffer aligned, AllocationLedger ledger) {
      super(raw, aligned, NativeAddress.of(aligned), freed(ledger, aligned.capacity()));
      this.raw = raw;
      this.ledger = ledger;
    }

    /** Accounts for the freeing; the buffer's own cleaner frees the memory if we did not. */
    private static Runnable freed(AllocationLedger ledger, int bytes) {
      return () -> ledger.freed(bytes);
    }

    @Override
    protected void onClosed() {
      ledger.closed(size());
    }

    @Override
    protected void freeNow() {
      NativeAddress.free(raw);
    }
  }
}
