package dev.stoker.loader.device;

import dev.stoker.loader.memory.HostMemory;

/**
 * Copies filled host slots to device buffers. Used by one transfer thread: {@link #copy} returns
 * once the copy is ordered before any later use of the buffer by the consumer (for CUDA: an
 * asynchronous copy and an event the consumer's stream waits on), after which the host slot may be
 * reused.
 */
public interface TransferEngine extends AutoCloseable {
  /** Copies the first {@code bytes} bytes of {@code source} into a free device buffer. */
  DeviceBuffer copy(HostMemory source, int bytes) throws InterruptedException;

  /** Returns a buffer that the consumer is done with. Thread-safe. */
  void release(DeviceBuffer buffer);

  /** Frees every device buffer; called once all of them are back. Safe to call twice. */
  @Override
  void close();
}
