package dev.stoker.loader.device;

/**
 * What probing for CUDA found: how many devices, or why none can be used.
 *
 * @param deviceCount CUDA devices visible to this process (0 when not available)
 * @param code what {@code cudaGetDeviceCount} returned, or -1 if JCuda could not be loaded
 * @param driverVersion the driver's CUDA version as {@code 1000 * major + 10 * minor} (e.g. 12040
 *     for 12.4), or 0 when unknown
 * @param problem why CUDA cannot be used, or null when it can
 */
public record CudaAvailability(int deviceCount, int code, int driverVersion, String problem) {
  /** Whether at least one CUDA device can be used. */
  public boolean available() {
    return problem == null && deviceCount > 0;
  }

  /** One line for messages: the devices found, or the problem. */
  public String describe() {
    if (!available()) {
      return problem;
    }
    return deviceCount
        + " CUDA device"
        + (deviceCount == 1 ? "" : "s")
        + " (driver for CUDA "
        + driverVersion / 1000
        + "."
        + driverVersion % 1000 / 10
        + ")";
  }
}
