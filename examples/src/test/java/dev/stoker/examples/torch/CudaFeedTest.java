package dev.stoker.examples.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.DeviceColumn;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.javacpp.indexer.FloatIndexer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;

/**
 * The CUDA branch's order of calls, on a stand-in device whose memory is host memory and a stand-in
 * for the framework's stream: each batch's tensor is the device column itself, the stream waits on
 * that batch's copy event before the tensor is handed out, and the event recorded after the step
 * reaches that batch's buffer ({@code reuseAfter}) before the batch is closed. The real CUDA calls
 * ({@link TorchCudaStreams}) need a GPU and PyTorch's GPU natives.
 */
class CudaFeedTest {

  /** The framework's side, recorded; wraps device addresses as CPU tensors (host memory here). */
  static final class RecordingStreams implements CudaStreams {
    final List<String> calls = new ArrayList<>();
    long nextEvent = 0x9000;
    int closes;

    @Override
    public Tensor wrap(long deviceAddress, long[] shape, ScalarType dtype, int ordinal) {
      calls.add("wrap " + Long.toHexString(deviceAddress) + " on " + ordinal);
      return torch.from_blob(
          new Pointer() {
            {
              address = deviceAddress;
            }
          },
          shape,
          new TensorOptions(dtype));
    }

    @Override
    public void waitFor(int ordinal, long event) {
      calls.add("wait " + Long.toHexString(event) + " on " + ordinal);
    }

    @Override
    public long recordStepDone(int ordinal) {
      calls.add("record " + Long.toHexString(nextEvent) + " on " + ordinal);
      return nextEvent++;
    }

    @Override
    public void close() {
      closes++;
    }
  }

  @Test
  void shouldWrapEachDeviceBatchAfterItsCopyAndReuseItsBufferAfterTheStep() {
    HostMemoryGpu gpu = new HostMemoryGpu();
    RecordingStreams streams = new RecordingStreams();
    List<String> expected = new ArrayList<>();
    try (CudaFeed feed = new CudaFeed(streams);
        DataLoader loader =
            DataLoader.builder(TorchBatchesTest.dataset(12))
                .options(TorchBatchesTest.options())
                .device(gpu)
                .build();
        PointerScope scope = new PointerScope()) {
      for (Batch batch : loader.epoch(0)) {
        DeviceColumn column = batch.deviceColumn("image");
        long copied = batch.deviceEvent().handle();

        Tensor images = feed.tensor(batch, "image");

        assertThat(images.data_ptr().address()).isEqualTo(column.address());
        assertThat(images.shape()).containsExactly(4, 2, 3);
        FloatIndexer values = images.createIndexer();
        assertThat(values.get(2, 1, 0)).isEqualTo((batch.index() * 4 + 2) * 10 + 3);
        images.sum(); // the step
        feed.stepIssued(batch);
        long stepDone = 0x9000 + batch.index();
        assertThat(gpu.reuseAfter.get(batch.deviceBuffer().address())).endsWith(stepDone);
        expected.add("wait " + Long.toHexString(copied) + " on 0");
        expected.add("wrap " + Long.toHexString(column.address()) + " on 0");
        expected.add("record " + Long.toHexString(stepDone) + " on 0");
      }
    }
    assertThat(streams.calls).containsExactlyElementsOf(expected).hasSize(9);
    assertThat(streams.closes).isEqualTo(1);
  }

  @Test
  void shouldRefuseAHostBatch() {
    try (CudaFeed feed = new CudaFeed(new RecordingStreams());
        DataLoader loader =
            DataLoader.builder(TorchBatchesTest.dataset(8))
                .options(TorchBatchesTest.options())
                .build()) {
      for (Batch batch : loader.epoch(0)) {
        assertThatThrownBy(() -> feed.tensor(batch, "image"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is in host memory");
        break;
      }
    }
  }

  @Test
  void shouldNameTheDeviceItCannotUse() {
    assertThat(CudaFeed.ordinal("cuda:3")).isEqualTo(3);
    assertThatThrownBy(() -> CudaFeed.ordinal("fake-gpu:0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "device: 'fake-gpu:0' (expected: cuda:N; a batch on the CPU device is a "
                + "host batch: use TorchBatches.hostTensor)");
  }

  @Test
  void shouldCloseItsStreamsOnceAndRefuseUseAfterClose() {
    RecordingStreams streams = new RecordingStreams();
    CudaFeed feed = new CudaFeed(streams);
    feed.close();
    feed.close();
    assertThat(streams.closes).isEqualTo(1);
    assertThatThrownBy(() -> feed.stepIssued(null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("this CudaFeed is closed");
  }
}
