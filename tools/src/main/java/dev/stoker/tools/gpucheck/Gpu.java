package dev.stoker.tools.gpucheck;

import dev.stoker.tools.gpucheck.device.RawCopies;

/**
 * What the check needs of the GPU besides a loader's device: facts, reading its memory, the step,
 * and raw copies. {@link JCudaGpu} is the real one; tests fake it.
 */
public interface Gpu {
  /** e.g. {@code NVIDIA H200 (sm_90)}. */
  String name();

  /** The driver's CUDA version, e.g. {@code 12.4}. */
  String driverVersion();

  long totalBytes();

  DeviceAccess access();

  /** A step with {@code ring} events to hand out and room for {@code maxLaunches} results. */
  Step newStep(int ring, int maxLaunches);

  /** Raw host-to-device copies of {@code bytes}, {@code copies} times each way. */
  RawCopies.Result rawCopies(int bytes, int copies);
}
