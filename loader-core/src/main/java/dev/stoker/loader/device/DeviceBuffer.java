package dev.stoker.loader.device;

/**
 * One batch-sized buffer in a device's memory, owned by the {@link TransferEngine} that made it.
 * Column {@code c} of the batch it holds starts at {@code address() + layout.columnOffset(c)}.
 */
public interface DeviceBuffer {
  /** The device holding the buffer, e.g. {@code cuda:0}. */
  String deviceName();

  /** Size in bytes. */
  int size();

  /** The device address of the first byte (e.g. a CUDA device pointer). */
  long address();

  /** Completes when the last copy into this buffer has. */
  DeviceEvent event();
}
