package dev.stoker.loader.memory;

/**
 * Allocates host memory blocks, up to a limit, and counts what it has out. Implementations: {@link
 * DirectAllocator} (direct memory) and the pinned allocator of a CUDA device. A block is given back
 * with {@link HostMemory#close()}; closing the allocator with blocks still open is an error that
 * names it and the bytes.
 */
public interface HostAllocator extends AutoCloseable {
  /** A short name for messages, e.g. {@code direct} or {@code pinned(cuda:0)}. */
  String name();

  /** Whether blocks are page-locked, so a device can copy them asynchronously. */
  boolean pinned();

  /** The most bytes this allocator has allocated at once. */
  long limit();

  /**
   * Bytes allocated and not yet freed, blocks waiting for their last view to become unreachable
   * included.
   */
  long allocatedBytes();

  /**
   * A block of exactly {@code bytes} bytes, aligned to 64 bytes, in native byte order.
   *
   * @throws IllegalArgumentException if {@code bytes <= 0} or too large for one block
   * @throws OutOfMemoryError when the limit or the machine refuses; the message names the
   *     allocator, the request, the limit and what is in use
   */
  HostMemory allocate(int bytes);

  /**
   * Stops allocating. Safe to call twice.
   *
   * @throws IllegalStateException if blocks are still open (not closed by their owner)
   */
  @Override
  void close();
}
