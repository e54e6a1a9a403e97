package dev.stoker.loader.device;

import dev.stoker.tools.gpucheck.DeviceAccess;
import dev.stoker.tools.gpucheck.Gpu;
import dev.stoker.tools.gpucheck.Step;
import dev.stoker.tools.gpucheck.device.RawCopies;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The GPU check's view of a GPU, on the fake runtime: its step spins on a stream of its own.
 *
 * <p>In loader-core's device package, from the tools' tests: the fake runtime (loader-core's
 * test-jar) and {@code CudaDevice.using} are that package's test seams, not public API.
 */
final class FakeGpu implements Gpu {
  private final FakeCudaRuntime runtime;

  FakeGpu(FakeCudaRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  public String name() {
    return "Fake GPU (sm_00)";
  }

  @Override
  public String driverVersion() {
    return "12.4";
  }

  @Override
  public long totalBytes() {
    return 1L << 30;
  }

  @Override
  public DeviceAccess access() {
    return new DeviceAccess() {
      @Override
      public void copyToHost(long address, byte[] target) {
        System.arraycopy(runtime.read(address, target.length), 0, target, 0, target.length);
      }

      @Override
      public long usedBytes() {
        return runtime.deviceBytes();
      }
    };
  }

  @Override
  public Step newStep(int ring, int maxLaunches) {
    long[] out = new long[1];
    runtime.streamCreateNonBlocking(out);
    long stream = out[0];
    long[] events = new long[ring];
    for (int i = 0; i < ring; i++) {
      runtime.eventCreate(out);
      events[i] = out[0];
    }
    AtomicLong spun = new AtomicLong();
    return new Step() {
      private int launches;

      @Override
      public long run(long copyEvent, long src, long nanos) {
        runtime.streamWaitEvent(stream, copyEvent);
        runtime.enqueue(
            stream,
            () -> {
              long start = System.nanoTime();
              runtime.read(src, 4); // the step reads its batch
              while (System.nanoTime() - start < nanos) {
                Thread.onSpinWait();
              }
              spun.addAndGet(System.nanoTime() - start);
            });
        long event = events[launches++ % events.length];
        runtime.eventRecord(event, stream);
        return event;
      }

      @Override
      public void reset() {
        runtime.streamSynchronize(stream);
        spun.set(0);
      }

      @Override
      public long finish() {
        runtime.streamSynchronize(stream);
        return spun.get();
      }

      @Override
      public void close() {
        runtime.streamSynchronize(stream);
        for (long event : events) {
          runtime.eventDestroy(event);
        }
        runtime.streamDestroy(stream);
      }
    };
  }

  @Override
  public RawCopies.Result rawCopies(int bytes, int copies) {
    return new RawCopies.Result(bytes, copies, 50, 45, 20);
  }
}
