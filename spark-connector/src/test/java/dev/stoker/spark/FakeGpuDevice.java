package dev.stoker.spark;

import dev.stoker.loader.device.CpuDevice;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.device.TransferEngine;
import dev.stoker.loader.device.TransferSpec;
import dev.stoker.loader.memory.HostAllocator;

/**
 * Stands in for a GPU device in tests where Spark schedules fake GPUs: named after the address
 * Spark gave the task, it keeps batches in host memory like the CPU.
 */
public final class FakeGpuDevice implements Device {
  /** Opens one per GPU address, as a CUDA device factory would. */
  static final DeviceFactory FACTORY = FakeGpuDevice::new;

  private final String address;

  FakeGpuDevice(String address) {
    this.address = address;
  }

  @Override
  public String name() {
    return "fake-gpu:" + address;
  }

  @Override
  public boolean isHost() {
    return true;
  }

  @Override
  public HostAllocator hostAllocator(String name, long limit, boolean pinMemory) {
    return CpuDevice.INSTANCE.hostAllocator(name, limit, pinMemory);
  }

  @Override
  public TransferEngine openTransfer(TransferSpec spec) {
    throw new UnsupportedOperationException(name() + " keeps batches in host memory");
  }

  @Override
  public void close() {
    // nothing held
  }
}
