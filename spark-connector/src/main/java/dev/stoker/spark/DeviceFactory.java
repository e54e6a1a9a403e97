package dev.stoker.spark;

import dev.stoker.loader.device.CpuDevice;
import dev.stoker.loader.device.Device;
import java.io.Serializable;

/**
 * Turns the GPU Spark gave a rank's task (the address of its {@code gpu} resource, e.g. {@code
 * "0"}) into the {@link Device} its loader delivers to. Called on the executor, once per rank, only
 * when the task has a GPU; a rank without one uses the CPU. Stoker closes the device after the
 * loader. {@link #CPU}, the default, keeps every rank on the CPU, so that a GPU device (e.g.
 * loader-core's CUDA device) plugs in here without other changes.
 */
@FunctionalInterface
public interface DeviceFactory extends Serializable {
  /** Every rank delivers to the CPU, whatever GPU its task has. */
  DeviceFactory CPU = gpuAddress -> CpuDevice.INSTANCE;

  Device open(String gpuAddress) throws Exception;
}
