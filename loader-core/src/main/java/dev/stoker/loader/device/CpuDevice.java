package dev.stoker.loader.device;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostAllocator;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The host CPU: batches are used where the workers filled them, in direct memory. */
public final class CpuDevice implements Device {
  /** The shared instance; it holds no resources. */
  public static final CpuDevice INSTANCE = new CpuDevice();

  private static final Logger LOG = LoggerFactory.getLogger(CpuDevice.class);
  private static final AtomicBoolean PIN_WARNED = new AtomicBoolean();

  private CpuDevice() {}

  @Override
  public String name() {
    return "cpu";
  }

  @Override
  public boolean isHost() {
    return true;
  }

  @Override
  public HostAllocator hostAllocator(String name, long limit, boolean pinMemory) {
    if (pinMemory && PIN_WARNED.compareAndSet(false, true)) {
      String cuda = CudaProbe.finding();
      LOG.warn(
          "pinMemory=true but the device is the CPU (no CUDA device in use{}): batches use "
              + "direct memory, which is what a CPU consumer wants anyway",
          cuda == null ? "" : "; CUDA: " + cuda);
    }
    return new DirectAllocator(name, limit);
  }

  @Override
  public TransferEngine openTransfer(TransferSpec spec) {
    throw new UnsupportedOperationException(
        "the cpu device uses batches in host memory: no transfer");
  }

  @Override
  public void close() {
    // nothing held
  }

  @Override
  public String toString() {
    return "cpu";
  }
}
