package dev.stoker.examples.torch;

import java.util.HashMap;
import java.util.Map;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.Device;
import org.bytedeco.pytorch.DeviceOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.DeviceType;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.bytedeco.pytorch.global.torch_cuda;

/**
 * {@link CudaStreams} through PyTorch's CUDA API (its current stream per device) and the CUDA
 * runtime of the JavaCPP presets. Needs PyTorch's GPU natives (the presets' {@code gpu} build) and
 * CUDA's ({@code org.bytedeco:cuda} natives) on the classpath; the examples ship neither, so this
 * class runs only where a user adds them. One event per device, recorded again after each step.
 */
public final class TorchCudaStreams implements CudaStreams {
  private static final int EVENT_DISABLE_TIMING = 2; // cudaEventDisableTiming
  private final Map<Integer, CUevent_st> stepDone = new HashMap<>();

  public TorchCudaStreams() {
    TorchNatives.load().require();
  }

  @Override
  public Tensor wrap(long address, long[] shape, ScalarType dtype, int ordinal) {
    TensorOptions options =
        new TensorOptions(dtype)
            .device(new DeviceOptional(new Device(DeviceType.CUDA, (byte) ordinal)));
    return torch.from_blob(at(address), shape, options);
  }

  @Override
  public void waitFor(int ordinal, long event) {
    if (event == 0) {
      return; // a completed event
    }
    check(
        cudart.cudaStreamWaitEvent(current(ordinal), new CUevent_st(at(event)), 0),
        "cudaStreamWaitEvent");
  }

  @Override
  public long recordStepDone(int ordinal) {
    CUevent_st event = stepDone.get(ordinal);
    if (event == null) {
      event = new CUevent_st();
      check(cudart.cudaSetDevice(ordinal), "cudaSetDevice");
      check(
          cudart.cudaEventCreateWithFlags(event, EVENT_DISABLE_TIMING), "cudaEventCreateWithFlags");
      stepDone.put(ordinal, event);
    }
    check(cudart.cudaEventRecord(event, current(ordinal)), "cudaEventRecord");
    return event.address();
  }

  @Override
  public void close() {
    for (Map.Entry<Integer, CUevent_st> entry : stepDone.entrySet()) {
      cudart.cudaStreamSynchronize(current(entry.getKey()));
      cudart.cudaEventDestroy(entry.getValue());
    }
    stepDone.clear();
  }

  private static CUstream_st current(int ordinal) {
    return torch_cuda.getCurrentCUDAStream((byte) ordinal).stream();
  }

  /** A pointer at a native address the caller owns. */
  private static Pointer at(long nativeAddress) {
    return new Pointer() {
      {
        address = nativeAddress; // Pointer's own field: a parameter named so would shadow it
      }
    };
  }

  private static void check(int code, String call) {
    if (code != 0) {
      throw new IllegalStateException(call + " failed: cudaError " + code);
    }
  }
}
