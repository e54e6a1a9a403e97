package dev.stoker.loader.device;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One device buffer of a {@link CudaTransferEngine}: {@code cudaMalloc}ed once for the loader's
 * life, with the event recorded after each copy into it.
 */
final class CudaBuffer implements DeviceBuffer {
  final CudaTransferEngine engine;
  final int index;
  private final long address;
  private final int size;
  private final CudaEvent event;

  /** Whether the buffer is with the pipeline or the consumer (not free). */
  final AtomicBoolean out = new AtomicBoolean();

  /** An event of the consumer's to wait for before the next copy into the buffer, or 0. */
  private volatile long reuseAfter;

  CudaBuffer(CudaTransferEngine engine, int index, long address, int size, CudaEvent event) {
    this.engine = engine;
    this.index = index;
    this.address = address;
    this.size = size;
    this.event = event;
  }

  @Override
  public String deviceName() {
    return engine.deviceName();
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public long address() {
    return address;
  }

  @Override
  public CudaEvent event() {
    return event;
  }

  @Override
  public void reuseAfter(long eventHandle) {
    reuseAfter = eventHandle;
  }

  /** The event to wait for before copying into the buffer again, or 0; clears it. */
  long takeReuseAfter() {
    long handle = reuseAfter;
    reuseAfter = 0;
    return handle;
  }

  @Override
  public String toString() {
    return "device buffer "
        + (index + 1)
        + " of "
        + engine.bufferCount()
        + " ("
        + engine.where()
        + ")";
  }
}
