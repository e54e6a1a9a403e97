package dev.stoker.examples.torch;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import java.nio.ByteBuffer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Stoker's batches as PyTorch tensors, without a copy. A host batch (the CPU device; pinned or
 * direct memory) becomes a CPU tensor over the column's memory with {@code from_blob}; a device
 * batch becomes a CUDA tensor through a {@link CudaFeed}, which also orders the framework's stream
 * after the batch's copy and the next copy into the buffer after the step.
 *
 * <p>A wrapped tensor does not own its memory: it is valid while the batch is (until the batch is
 * closed or the next one is asked for). Keep nothing of it past the step, or {@code clone()} it.
 */
public final class TorchBatches {
  private TorchBatches() {}

  /**
   * Column {@code field} of a host batch as a CPU tensor of shape {@code [size, ...field shape]}
   * over the batch's own memory: {@code data_ptr()} is the column's address, and a write through
   * either is seen by the other.
   *
   * @throws IllegalStateException if the batch is on a device or no longer valid
   */
  public static Tensor hostTensor(Batch batch, String field) {
    TorchNatives.load().require();
    Field column = batch.schema().field(batch.schema().indexOf(field));
    ByteBuffer memory = batch.column(field);
    long[] shape = shape(batch.size(), column.shape());
    return torch.from_blob(new Pointer(memory), shape, options(column.dtype()));
  }

  /** The native address of column {@code field} of a host batch ({@link #hostTensor}'s data). */
  public static long hostAddress(Batch batch, String field) {
    return new Pointer(batch.column(field)).address();
  }

  static long[] shape(long rows, int[] fieldShape) {
    long[] shape = new long[fieldShape.length + 1];
    shape[0] = rows;
    for (int i = 0; i < fieldShape.length; i++) {
      shape[i + 1] = fieldShape[i];
    }
    return shape;
  }

  static TensorOptions options(DType dtype) {
    return new TensorOptions(scalarType(dtype));
  }

  /** The framework's element type for a Stoker dtype. */
  public static ScalarType scalarType(DType dtype) {
    return switch (dtype) {
      case UINT8 -> ScalarType.Byte;
      case INT32 -> ScalarType.Int;
      case INT64 -> ScalarType.Long;
      case FLOAT32 -> ScalarType.Float;
      case FLOAT64 -> ScalarType.Double;
    };
  }
}
