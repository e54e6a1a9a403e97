package dev.stoker.loader.device;

/** One batch-sized buffer in a device's memory, owned by the {@link TransferEngine} that made it. */
public interface DeviceBuffer {
  /** The device holding the buffer, e.g. {@code cuda:0}. */
  String deviceName();

  /** Size in bytes. */
  int size();
}
