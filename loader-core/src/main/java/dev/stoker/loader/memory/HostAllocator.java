package dev.stoker.loader.memory;

/**
 * Allocates host memory blocks. Implementations: {@link DirectAllocator} (direct byte buffers) and
 * the pinned allocator of a CUDA device. A block is freed by {@link HostMemory#close()}.
 */
public interface HostAllocator {
  /** A short name for messages, e.g. {@code direct} or {@code pinned(cuda:0)}. */
  String name();

  /** Whether blocks are page-locked, so a device can copy them asynchronously. */
  boolean pinned();

  /**
   * A block of exactly {@code bytes} bytes, aligned to 64 bytes, in native byte order.
   *
   * @throws OutOfMemoryError when the memory cannot be had
   */
  HostMemory allocate(int bytes);
}
