package dev.stoker.loader.device;

import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Page-locked host memory from {@code cudaHostAlloc} (portable: usable with every device), so that
 * copies from it to the GPU run asynchronously. Blocks follow {@link HostMemory}'s rule: a block
 * never viewed is freed ({@code cudaFreeHost}) when closed, one that was viewed once its last view
 * is unreachable. The calling thread is bound to the device for each allocation and free, if it was
 * bound to another (CUDA binds a device per thread).
 */
final class PinnedAllocator implements HostAllocator {
  private static final Logger LOG = LoggerFactory.getLogger(PinnedAllocator.class);
  private static final int ALIGNMENT = 64;

  private final String name;
  private final CudaRuntime runtime;
  private final DeviceBinding binding;
  private final PinnedLedger ledger;
  private final String where;
  private volatile boolean closed;

  PinnedAllocator(
      String name,
      long limit,
      CudaRuntime runtime,
      DeviceBinding binding,
      AtomicLong devicePinned) {
    this.name = name;
    this.runtime = runtime;
    this.binding = binding;
    this.ledger = new PinnedLedger(name, limit, devicePinned);
    this.where = binding.where("host allocator '" + name + "'");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean pinned() {
    return true;
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
  long openBytes() {
    return ledger.open();
  }

  @Override
  public HostMemory allocate(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("bytes: " + bytes + " (expected: > 0)");
    }
    if (closed) {
      throw new IllegalStateException("host allocator '" + name + "' is closed");
    }
    ledger.reserve(bytes);
    boolean done = false;
    try {
      binding.bind();
      long[] address = new long[1];
      ByteBuffer[] memory = new ByteBuffer[1];
      int code = runtime.hostAlloc(bytes, address, memory);
      if (code == CudaRuntime.MEMORY_ALLOCATION) {
        throw new OutOfMemoryError(
            CudaCheck.failure(
                    runtime, code, "cudaHostAlloc", bytes + " bytes of page-locked memory", where)
                .getMessage());
      }
      CudaCheck.check(
          runtime, code, "cudaHostAlloc", bytes + " bytes of page-locked memory", where);
      HostMemory block = wrap(address[0], memory[0], bytes);
      done = true;
      return block;
    } finally {
      if (!done) {
        ledger.unreserve(bytes);
      }
    }
  }

  /** The block as {@link HostMemory}, from its first 64-byte aligned address (CUDA's is). */
  private HostMemory wrap(long address, ByteBuffer memory, int bytes) {
    int skip = (int) ((ALIGNMENT - Math.floorMod(address, ALIGNMENT)) % ALIGNMENT);
    if (memory == null || memory.capacity() < skip + bytes) {
      runtime.freeHost(address);
      throw new IllegalStateException(
          String.format(
              "cudaHostAlloc gave %s for %d bytes at "
                  + "0x%x (expected: a buffer over the block) on %s",
              memory == null ? "no buffer" : "a buffer of " + memory.capacity() + " bytes",
              bytes,
              address,
              where));
    }
    ledger.allocated(bytes);
    ByteBuffer block = skip == 0 && memory.capacity() == bytes ? memory : memory.slice(skip, bytes);
    return new PinnedMemory(
        memory,
        block,
        address + skip,
        new Free(runtime, binding, ledger, address, bytes, where),
        ledger);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    ledger.checkNothingOpen();
  }

  @Override
  public String toString() {
    return String.format(
        "PinnedAllocator[%s, %s, %d of %d bytes allocated]",
        name, binding.deviceName(), ledger.reserved(), ledger.limit());
  }

  private static final class PinnedMemory extends HostMemory {
    private final PinnedLedger ledger;

    PinnedMemory(ByteBuffer root, ByteBuffer block, long address, Free free, PinnedLedger ledger) {
      super(root, block, address, free);
      this.ledger = ledger;
    }

    @Override
    protected void onClosed() {
      ledger.closed(size());
    }
  }

  /**
   * Frees one block: {@code cudaFreeHost}, then the accounting. Holds no reference to the block's
   * buffers, so that it can run once they are unreachable (on the cleaner's thread).
   */
  private static final class Free implements Runnable {
    private final CudaRuntime runtime;
    private final DeviceBinding binding;
    private final PinnedLedger ledger;
    private final long address;
    private final int bytes;
    private final String where;

    Free(
        CudaRuntime runtime,
        DeviceBinding binding,
        PinnedLedger ledger,
        long address,
        int bytes,
        String where) {
      this.runtime = runtime;
      this.binding = binding;
      this.ledger = ledger;
      this.address = address;
      this.bytes = bytes;
      this.where = where;
    }

    @Override
    public void run() {
      try {
        binding.bind();
        CudaCheck.check(
            runtime,
            runtime.freeHost(address),
            "cudaFreeHost",
            bytes + " bytes of page-locked memory",
            where);
        ledger.freed(bytes);
      } catch (RuntimeException | LinkageError e) {
        // On the cleaner's thread there is no one to tell but the log; the bytes stay counted.
        LOG.warn("freeing page-locked memory failed; {} bytes stay counted as in use", bytes, e);
      }
    }
  }
}
