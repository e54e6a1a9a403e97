package dev.stoker.loader.device;

/**
 * Checks the code every CUDA runtime call returns. Allocation-free when the call succeeded; a
 * failure becomes a {@link CudaCallException} naming the call, the code, its name, the place and,
 * where there is one, the way out.
 */
final class CudaCheck {
  private CudaCheck() {}

  /**
   * Throws unless {@code code} is success.
   *
   * @param what what the call was doing, e.g. {@code "device buffer 2 of 4 (4096 bytes)"}
   * @param where the device and the loader, e.g. {@code "cuda:0, loader 'train'"}
   */
  static void check(CudaRuntime runtime, int code, String call, String what, String where) {
    if (code != CudaRuntime.SUCCESS) {
      throw failure(runtime, code, call, what, where);
    }
  }

  static CudaCallException failure(
      CudaRuntime runtime, int code, String call, String what, String where) {
    String name = nameOf(runtime, code);
    StringBuilder message =
        new StringBuilder()
            .append(call)
            .append(" returned ")
            .append(code)
            .append(" (")
            .append(name)
            .append(')');
    if (what != null && !what.isEmpty()) {
      message.append(" for ").append(what);
    }
    message.append(" on ").append(where);
    String remedy = remedy(call, code);
    if (remedy != null) {
      message.append(": ").append(remedy);
    }
    return new CudaCallException(call, code, name, message.toString());
  }

  /** The code's name, or {@code cudaError <code>} if the runtime cannot say. */
  static String nameOf(CudaRuntime runtime, int code) {
    try {
      String name = runtime.errorName(code);
      return name == null || name.isEmpty() ? "cudaError " + code : name;
    } catch (RuntimeException | LinkageError e) {
      return "cudaError " + code;
    }
  }

  private static String remedy(String call, int code) {
    return switch (code) {
      case CudaRuntime.MEMORY_ALLOCATION ->
          call.equals("cudaHostAlloc")
              ? "the machine refused page-locked memory; lower maxHostBytes, or set pinMemory=false"
              : "the GPU is out of memory; lower transferDepth or batchSize, or free GPU memory";
      case CudaRuntime.INSUFFICIENT_DRIVER ->
          "no NVIDIA driver, or one older than CUDA 12.0 needs; install one, or load on the CPU "
              + "device";
      case CudaRuntime.NO_DEVICE ->
          "no CUDA device is visible (check CUDA_VISIBLE_DEVICES), or " + "load on the CPU device";
      default -> null;
    };
  }
}
