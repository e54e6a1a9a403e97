package dev.stoker.tools.gpucheck;

import dev.stoker.tools.gpucheck.device.GpuInfo;
import dev.stoker.tools.gpucheck.device.RawCopies;
import dev.stoker.tools.gpucheck.device.SpinStep;

/** The GPU through gpucheck.device's CUDA calls; binds the constructing thread to the device. */
final class JCudaGpu implements Gpu {
  private final GpuInfo info;

  JCudaGpu(int ordinal) {
    this.info = new GpuInfo(ordinal);
  }

  @Override
  public String name() {
    return info.name();
  }

  @Override
  public String driverVersion() {
    return GpuInfo.driverVersion();
  }

  @Override
  public long totalBytes() {
    return info.totalBytes();
  }

  @Override
  public DeviceAccess access() {
    return new DeviceAccess() {
      @Override
      public void copyToHost(long address, byte[] target) {
        info.copyToHost(address, target);
      }

      @Override
      public long usedBytes() {
        return info.usedBytes();
      }
    };
  }

  @Override
  public Step newStep(int ring, int maxLaunches) {
    SpinStep spin = new SpinStep(ring, maxLaunches);
    return new Step() {
      @Override
      public long run(long copyEvent, long src, long nanos) {
        return spin.run(copyEvent, src, nanos);
      }

      @Override
      public void reset() {
        spin.reset();
      }

      @Override
      public long finish() {
        return spin.finish();
      }

      @Override
      public void close() {
        spin.close();
      }
    };
  }

  @Override
  public RawCopies.Result rawCopies(int bytes, int copies) {
    info.bind();
    return RawCopies.measure(bytes, copies);
  }
}
