package dev.stoker.tools.gpucheck.device;

import jcuda.driver.CUresult;
import jcuda.runtime.cudaError;

/** Checks the codes of the check's own CUDA calls. */
final class Calls {
  private Calls() {}

  /** Throws unless a runtime call succeeded, naming the call, the code and its name. */
  static void check(int code, String call) {
    if (code != cudaError.cudaSuccess) {
      throw new IllegalStateException(
          call + " returned " + code + " (" + cudaError.stringFor(code) + ")");
    }
  }

  /** Like {@link #check}, for a driver API call. */
  static void checkDriver(int code, String call) {
    if (code != CUresult.CUDA_SUCCESS) {
      throw new IllegalStateException(
          call + " returned " + code + " (" + CUresult.stringFor(code) + ")");
    }
  }
}
