package dev.stoker.tools.gpucheck.device;

import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaDeviceProp;
import jcuda.runtime.cudaMemcpyKind;

/**
 * Facts about a CUDA device, its memory in use, and synchronous reads of device memory; each call
 * binds the calling thread to the device first.
 */
public final class GpuInfo {
  private final int ordinal;

  public GpuInfo(int ordinal) {
    this.ordinal = ordinal;
    bind();
  }

  /** Makes the device the calling thread's current one (and its context live). */
  public void bind() {
    Calls.check(JCuda.cudaSetDevice(ordinal), "cudaSetDevice(" + ordinal + ")");
    Calls.check(JCuda.cudaFree(new Pointer()), "cudaFree(NULL)");
  }

  /** The device's name, e.g. {@code NVIDIA H200}, and compute capability. */
  public String name() {
    cudaDeviceProp properties = new cudaDeviceProp();
    Calls.check(JCuda.cudaGetDeviceProperties(properties, ordinal), "cudaGetDeviceProperties");
    return properties.getName() + " (sm_" + properties.major + properties.minor + ")";
  }

  /** The driver's CUDA version, e.g. {@code 12.4}. */
  public static String driverVersion() {
    int[] version = new int[1];
    Calls.check(JCuda.cudaDriverGetVersion(version), "cudaDriverGetVersion");
    return version[0] / 1000 + "." + version[0] % 1000 / 10;
  }

  /** Device memory in use on the whole device (by every process), from {@code cudaMemGetInfo}. */
  public long usedBytes() {
    bind();
    long[] free = new long[1];
    long[] total = new long[1];
    Calls.check(JCuda.cudaMemGetInfo(free, total), "cudaMemGetInfo");
    return total[0] - free[0];
  }

  /** Device memory in all. */
  public long totalBytes() {
    long[] free = new long[1];
    long[] total = new long[1];
    Calls.check(JCuda.cudaMemGetInfo(free, total), "cudaMemGetInfo");
    return total[0];
  }

  /** Copies {@code target.length} bytes from device address {@code address}, synchronously. */
  public void copyToHost(long address, byte[] target) {
    Calls.check(
        JCuda.cudaMemcpy(
            Pointer.to(target),
            Handles.pointer(address),
            target.length,
            cudaMemcpyKind.cudaMemcpyDeviceToHost),
        "cudaMemcpy(device to host)");
  }
}
