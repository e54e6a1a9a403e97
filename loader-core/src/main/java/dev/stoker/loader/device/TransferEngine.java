package dev.stoker.loader.device;

import dev.stoker.loader.memory.HostMemory;

/**
 * Copies filled host slots to device buffers, for one loader. {@link #copy} and {@link #close()}
 * are called on the loader's transfer thread only; {@link #release} from any thread.
 */
public interface TransferEngine extends AutoCloseable {
  /**
   * Starts copying the first {@code bytes} bytes of {@code source} into a free device buffer
   * (waiting for one if none is free) and returns it; the copy is done when the buffer's {@link
   * DeviceBuffer#event() event} has completed, and only then may {@code source} be reused.
   */
  DeviceBuffer copy(HostMemory source, int bytes) throws InterruptedException;

  /** Returns a buffer the consumer is done with. Thread-safe. */
  void release(DeviceBuffer buffer);

  /** Frees every device buffer and the engine's streams; called once, on the transfer thread. */
  @Override
  void close();
}
