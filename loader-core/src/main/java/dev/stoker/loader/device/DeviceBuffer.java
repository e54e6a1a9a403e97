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

  /**
   * Asks the device not to copy into this buffer again before the work that {@code eventHandle}
   * marks has completed: a consumer that runs its step asynchronously records an event on its
   * stream after the step and passes it here before closing the batch, so the buffer is not
   * overwritten while the step still reads it, with no wait on the host. The event must stay alive
   * until it is recorded again or the loader is closed. Devices whose copies are synchronous ignore
   * it (the default).
   *
   * @param eventHandle a native event of the device (e.g. a {@code cudaEvent_t}), or 0 for none
   */
  default void reuseAfter(long eventHandle) {}
}
