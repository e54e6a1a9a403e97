package dev.stoker.loader.device;

/**
 * A CUDA runtime call returned an error. The message names the call, the code and its name, where
 * it happened (device, loader, what was being done) and, for the errors a user can act on, what to
 * do, e.g. {@code cudaMalloc returned 2 (cudaErrorMemoryAllocation) for device buffer 3 of 4
 * (16777216 bytes) on cuda:0, loader 'train': the GPU is out of memory; lower transferDepth or
 * batchSize}.
 */
public final class CudaCallException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String call;
  private final int code;
  private final String codeName;

  CudaCallException(String call, int code, String codeName, String message) {
    super(message);
    this.call = call;
    this.code = code;
    this.codeName = codeName;
  }

  /** The runtime call, e.g. {@code cudaMemcpyAsync}. */
  public String call() {
    return call;
  }

  /** The {@code cudaError_t} it returned. */
  public int code() {
    return code;
  }

  /** The code's name, e.g. {@code cudaErrorIllegalAddress}. */
  public String codeName() {
    return codeName;
  }
}
