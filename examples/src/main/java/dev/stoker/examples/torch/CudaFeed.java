package dev.stoker.examples.torch;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DeviceColumn;
import dev.stoker.loader.device.DeviceBuffer;
import org.bytedeco.pytorch.Tensor;

/**
 * Device batches as CUDA tensors on the loader's device, for one consumer thread:
 *
 * <pre>{@code
 * try (CudaFeed feed = new CudaFeed(new TorchCudaStreams());     // opened first, closed last
 *      DataLoader loader = DataLoader.builder(dataset).device(gpu).build()) {
 *   for (Batch batch : loader.epoch(epoch)) {
 *     Tensor x = feed.tensor(batch, "image");   // stream waits on the batch's copy event
 *     ...                                       // the step, enqueued on the current stream
 *     feed.stepIssued(batch);                   // the buffer is reused only after the step
 *   }                                           // the loop closes the batch
 * }
 * }</pre>
 *
 * No call waits on the host: the copy of batch k+1 overlaps the step on batch k, and the loader
 * copies into a buffer again only once the step that read it has completed ({@link
 * DeviceBuffer#reuseAfter}).
 */
public final class CudaFeed implements AutoCloseable {
  private final CudaStreams streams;
  private boolean closed;

  public CudaFeed(CudaStreams streams) {
    this.streams = streams;
  }

  /**
   * Column {@code field} of a device batch as a tensor on the batch's device, shape {@code
   * [batchSize, ...field shape]} (all rows; the batch's {@code size()} are valid), over the device
   * buffer itself; the framework's current stream waits for the batch's copy first.
   *
   * @throws IllegalStateException if the batch is in host memory or no longer valid
   */
  public Tensor tensor(Batch batch, String field) {
    checkOpen();
    DeviceBuffer buffer = batch.deviceBuffer();
    int ordinal = ordinal(buffer.deviceName());
    DeviceColumn column = batch.deviceColumn(field);
    streams.waitFor(ordinal, batch.deviceEvent().handle());
    int[] shape = column.shape();
    long[] sizes = new long[shape.length];
    for (int i = 0; i < shape.length; i++) {
      sizes[i] = shape[i];
    }
    return streams.wrap(column.address(), sizes, TorchBatches.scalarType(column.dtype()), ordinal);
  }

  /**
   * Tells the loader when the step enqueued on this batch completes: records an event after it on
   * the framework's stream and hands it to the batch's buffer, before the batch is closed.
   */
  public void stepIssued(Batch batch) {
    checkOpen();
    DeviceBuffer buffer = batch.deviceBuffer();
    buffer.reuseAfter(streams.recordStepDone(ordinal(buffer.deviceName())));
  }

  /**
   * The CUDA ordinal in a device name such as {@code cuda:0}.
   *
   * @throws IllegalArgumentException for any other name
   */
  static int ordinal(String deviceName) {
    int colon = deviceName.indexOf(':');
    String digits = colon < 0 ? "" : deviceName.substring(colon + 1);
    if (!deviceName.startsWith("cuda:")
        || digits.isEmpty()
        || !digits.chars().allMatch(Character::isDigit)
        || digits.length() > 4) {
      throw new IllegalArgumentException(
          "device: '"
              + deviceName
              + "' (expected: cuda:N; a "
              + "batch on the CPU device is a host batch: use TorchBatches.hostTensor)");
    }
    return Integer.parseInt(digits);
  }

  private synchronized void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this CudaFeed is closed");
    }
  }

  /**
   * Closes the streams' events (after their work). Close the loader first: it may still wait on the
   * last event before a copy.
   */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      streams.close();
    }
  }
}
