package dev.stoker.tools.gpucheck.device;

import java.nio.ByteBuffer;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaMemcpyKind;
import jcuda.runtime.cudaStream_t;

/**
 * Host-to-device bandwidth of plain {@code cudaMemcpyAsync}, the limits a loader is measured
 * against: from page-locked memory back to back on one non-blocking stream, from page-locked memory
 * waiting on the host after each copy (as a loader's transfer thread does), and from pageable
 * (direct) memory. Run on a thread bound to the device ({@link GpuInfo#bind()}).
 */
public final class RawCopies {
  /** Bandwidths in GB/s (10^9 bytes per second). */
  public record Result(
      long bytes, int copies, double pinnedGbps, double pinnedWaitEachGbps, double pageableGbps) {}

  private RawCopies() {}

  /** {@code copies} copies of {@code bytes} bytes each way, after a few to warm up. */
  public static Result measure(int bytes, int copies) {
    Pointer pinned = new Pointer();
    Pointer device = new Pointer();
    cudaStream_t stream = new cudaStream_t();
    cudaEvent_t start = new cudaEvent_t();
    cudaEvent_t stop = new cudaEvent_t();
    ByteBuffer pageable = ByteBuffer.allocateDirect(bytes);
    Calls.check(JCuda.cudaHostAlloc(pinned, bytes, JCuda.cudaHostAllocPortable), "cudaHostAlloc");
    try {
      Calls.check(JCuda.cudaMalloc(device, bytes), "cudaMalloc");
      Calls.check(
          JCuda.cudaStreamCreateWithFlags(stream, JCuda.cudaStreamNonBlocking),
          "cudaStreamCreateWithFlags");
      Calls.check(JCuda.cudaEventCreate(start), "cudaEventCreate");
      Calls.check(JCuda.cudaEventCreate(stop), "cudaEventCreate");
      Pointer fromPageable = Pointer.to(pageable);
      backToBack(pinned, device, bytes, 4, stream, start, stop);
      double pinnedGbps =
          gbps(bytes, copies, backToBack(pinned, device, bytes, copies, stream, start, stop));
      double waitEachGbps =
          gbps(bytes, copies, waitEach(pinned, device, bytes, copies, stream, stop));
      backToBack(fromPageable, device, bytes, 4, stream, start, stop);
      double pageableGbps =
          gbps(bytes, copies, backToBack(fromPageable, device, bytes, copies, stream, start, stop));
      return new Result(bytes, copies, pinnedGbps, waitEachGbps, pageableGbps);
    } finally {
      JCuda.cudaStreamSynchronize(stream);
      JCuda.cudaEventDestroy(start);
      JCuda.cudaEventDestroy(stop);
      JCuda.cudaStreamDestroy(stream);
      JCuda.cudaFree(device);
      JCuda.cudaFreeHost(pinned);
    }
  }

  /** Seconds for {@code copies} copies issued back to back, timed with events. */
  private static double backToBack(
      Pointer host,
      Pointer device,
      int bytes,
      int copies,
      cudaStream_t stream,
      cudaEvent_t start,
      cudaEvent_t stop) {
    Calls.check(JCuda.cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < copies; i++) {
      Calls.check(
          JCuda.cudaMemcpyAsync(device, host, bytes, cudaMemcpyKind.cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync");
    }
    Calls.check(JCuda.cudaEventRecord(stop, stream), "cudaEventRecord");
    Calls.check(JCuda.cudaEventSynchronize(stop), "cudaEventSynchronize");
    float[] ms = new float[1];
    Calls.check(JCuda.cudaEventElapsedTime(ms, start, stop), "cudaEventElapsedTime");
    return ms[0] / 1e3;
  }

  /** Seconds on the host for copies each waited for before the next is issued. */
  private static double waitEach(
      Pointer host, Pointer device, int bytes, int copies, cudaStream_t stream, cudaEvent_t done) {
    long start = System.nanoTime();
    for (int i = 0; i < copies; i++) {
      Calls.check(
          JCuda.cudaMemcpyAsync(device, host, bytes, cudaMemcpyKind.cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync");
      Calls.check(JCuda.cudaEventRecord(done, stream), "cudaEventRecord");
      Calls.check(JCuda.cudaEventSynchronize(done), "cudaEventSynchronize");
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static double gbps(long bytes, int copies, double seconds) {
    return seconds <= 0 ? 0 : bytes * (double) copies / seconds / 1e9;
  }
}
