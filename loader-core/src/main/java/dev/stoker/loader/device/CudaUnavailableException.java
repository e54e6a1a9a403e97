package dev.stoker.loader.device;

/**
 * A CUDA device was asked for where CUDA cannot be used: no JCuda native library, no driver, or no
 * device. The message says what was found and how to load on the CPU instead.
 */
public final class CudaUnavailableException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient CudaAvailability availability;

  CudaUnavailableException(String message, CudaAvailability availability) {
    super(message);
    this.availability = availability;
  }

  /** What probing for CUDA found. */
  public CudaAvailability availability() {
    return availability;
  }
}
