package dev.stoker.tools.gpucheck.device;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaMemcpyKind;
import jcuda.runtime.cudaStream_t;

/**
 * The synthetic training step: the {@code spin} kernel of {@code spin.ptx} (hand-written PTX 7.0
 * for sm_52 and up, loaded with {@code cuModuleLoadData}, so any driver for CUDA 11 or later
 * JIT-compiles it for its GPU), one thread spinning on {@code %globaltimer} for a set time, then
 * reading the batch's first word. Each {@link #run} makes a stream of its own wait on the batch's
 * copy event, launches the kernel there and records an event after it (one of a ring, for {@code
 * DeviceBuffer.reuseAfter}); {@link #finish} waits and says how long the kernels spun. Use from one
 * thread, bound to the device ({@link GpuInfo#bind()}).
 */
public final class SpinStep implements AutoCloseable {
  private final CUmodule module = new CUmodule();
  private final CUfunction spin = new CUfunction();
  private final cudaStream_t stream = new cudaStream_t();
  private final cudaEvent_t[] done;
  private final Pointer out = new Pointer();
  private final int maxLaunches;
  private int launches;
  private boolean closed;

  /**
   * Loads the kernel into the current context and makes a stream, {@code ring} events and room for
   * {@code maxLaunches} results; frees what it made if one of them fails.
   */
  public SpinStep(int ring, int maxLaunches) {
    this.maxLaunches = maxLaunches;
    this.done = new cudaEvent_t[ring];
    try {
      create();
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  private void create() {
    Calls.checkDriver(JCudaDriver.cuInit(0), "cuInit");
    Calls.checkDriver(JCudaDriver.cuModuleLoadData(module, ptx()), "cuModuleLoadData(spin.ptx)");
    Calls.checkDriver(
        JCudaDriver.cuModuleGetFunction(spin, module, "spin"), "cuModuleGetFunction(spin)");
    Calls.check(
        JCuda.cudaStreamCreateWithFlags(stream, JCuda.cudaStreamNonBlocking),
        "cudaStreamCreateWithFlags");
    for (int i = 0; i < done.length; i++) {
      done[i] = new cudaEvent_t();
      Calls.check(
          JCuda.cudaEventCreateWithFlags(done[i], JCuda.cudaEventDisableTiming),
          "cudaEventCreateWithFlags");
    }
    Calls.check(JCuda.cudaMalloc(out, 16L * maxLaunches), "cudaMalloc");
  }

  /** The PTX source, NUL-terminated as {@code cuModuleLoadData} wants it. */
  public static byte[] ptx() {
    try (InputStream in = SpinStep.class.getResourceAsStream("spin.ptx")) {
      if (in == null) {
        throw new IllegalStateException(
            "spin.ptx is not on the classpath next to " + SpinStep.class.getName());
      }
      byte[] source = in.readAllBytes();
      return Arrays.copyOf(source, source.length + 1);
    } catch (IOException e) {
      throw new IllegalStateException("reading spin.ptx: " + e, e);
    }
  }

  /**
   * One step on the batch at {@code src}, after its copy ({@code copyEvent}, 0 for none): spins
   * {@code nanos} ns. Returns the event recorded after it.
   */
  public long run(long copyEvent, long src, long nanos) {
    if (launches == maxLaunches) {
      throw new IllegalStateException(
          "launches: "
              + maxLaunches
              + " already (expected: at most "
              + maxLaunches
              + " before reset())");
    }
    if (copyEvent != 0) {
      Calls.check(
          JCuda.cudaStreamWaitEvent(stream, Handles.event(copyEvent), 0), "cudaStreamWaitEvent");
    }
    long slot = Handles.valueOf(out) + 16L * launches;
    Pointer parameters =
        Pointer.to(
            Pointer.to(new long[] {nanos}),
            Pointer.to(new long[] {src}),
            Pointer.to(new long[] {slot}));
    Calls.checkDriver(
        JCudaDriver.cuLaunchKernel(
            spin, 1, 1, 1, 1, 1, 1, 0, new CUstream(stream), parameters, null),
        "cuLaunchKernel(spin)");
    cudaEvent_t event = done[launches % done.length];
    Calls.check(JCuda.cudaEventRecord(event, stream), "cudaEventRecord");
    launches++;
    return Handles.valueOf(event);
  }

  /** Waits for every step launched; returns the nanoseconds they spun, in all. */
  public long finish() {
    Calls.check(JCuda.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (launches == 0) {
      return 0;
    }
    byte[] results = new byte[16 * launches];
    Calls.check(
        JCuda.cudaMemcpy(
            Pointer.to(results), out, results.length, cudaMemcpyKind.cudaMemcpyDeviceToHost),
        "cudaMemcpy(device to host)");
    ByteBuffer read = ByteBuffer.wrap(results).order(ByteOrder.nativeOrder());
    long total = 0;
    for (int i = 0; i < launches; i++) {
      total += read.getLong(16 * i);
    }
    return total;
  }

  /** Waits for the steps launched and starts counting afresh. */
  public void reset() {
    Calls.check(JCuda.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    launches = 0;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    JCuda.cudaStreamSynchronize(stream);
    for (cudaEvent_t event : done) {
      if (event != null) {
        JCuda.cudaEventDestroy(event);
      }
    }
    JCuda.cudaStreamDestroy(stream);
    JCuda.cudaFree(out);
    JCudaDriver.cuModuleUnload(module);
  }
}
