package dev.stoker.loader.device;

/**
 * One CUDA device as seen from a thread: CUDA binds the current device per thread, so every thread
 * that calls CUDA for this device first {@link #bind()}s itself to it. Also names the device in
 * messages.
 */
final class DeviceBinding {
  private final CudaRuntime runtime;
  private final int ordinal;
  private final String deviceName;

  DeviceBinding(CudaRuntime runtime, int ordinal) {
    this.runtime = runtime;
    this.ordinal = ordinal;
    this.deviceName = "cuda:" + ordinal;
  }

  int ordinal() {
    return ordinal;
  }

  String deviceName() {
    return deviceName;
  }

  /**
   * Makes this device the calling thread's current one, unless it is already; a thread bound to
   * nothing yet is bound to this device, not to device 0.
   */
  void bind() {
    int[] current = new int[1];
    if (runtime.getDevice(current) == CudaRuntime.SUCCESS && current[0] == ordinal) {
      return;
    }
    CudaCheck.check(
        runtime,
        runtime.setDevice(ordinal),
        "cudaSetDevice",
        "binding thread '" + Thread.currentThread().getName() + "'",
        deviceName);
  }

  /** {@code cuda:0, <owner>} for messages. */
  String where(String owner) {
    return deviceName + ", " + owner;
  }
}
