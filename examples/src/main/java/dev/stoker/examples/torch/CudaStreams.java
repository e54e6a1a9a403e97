package dev.stoker.examples.torch;

import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The framework's side of a device batch: the three CUDA calls a {@link CudaFeed} makes on the
 * framework's current stream. {@link TorchCudaStreams} makes them through PyTorch's CUDA API; a
 * test puts its own behind this interface to run the feed's order of calls without a GPU.
 */
public interface CudaStreams extends AutoCloseable {
  /**
   * Wraps {@code address} on CUDA device {@code ordinal} as a tensor of {@code shape} and {@code
   * dtype}, without a copy ({@code from_blob} with a CUDA device).
   */
  Tensor wrap(long address, long[] shape, ScalarType dtype, int ordinal);

  /**
   * Makes the framework's current stream on device {@code ordinal} wait for {@code event} (a {@code
   * cudaEvent_t}) before the work enqueued after this call: {@code cudaStreamWaitEvent}, no wait on
   * the host.
   */
  void waitFor(int ordinal, long event);

  /**
   * Records an event on the framework's current stream on device {@code ordinal}, after the work
   * enqueued so far, and returns it ({@code cudaEvent_t}). The same event may be recorded again
   * after a later step: it lives until {@link #close()}.
   */
  long recordStepDone(int ordinal);

  /** Waits for the streams' work and frees the events. */
  @Override
  void close();
}
