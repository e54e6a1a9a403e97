package dev.stoker.examples.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.ArrayDataset;
import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.javacpp.indexer.FloatIndexer;
import org.bytedeco.javacpp.indexer.LongIndexer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;

/** A host batch as a CPU tensor: the batch's own memory, no copy. */
class TorchBatchesTest {
  static final Schema SCHEMA =
      Schema.of(Field.of("image", DType.FLOAT32, 2, 3), Field.scalar("label", DType.INT64));

  /** Sample i: image values i*10 + 0..5, label i. */
  static ArrayDataset dataset(int size) {
    return ArrayDataset.of(
        SCHEMA,
        size,
        i -> {
          float[] image = new float[6];
          for (int e = 0; e < 6; e++) {
            image[e] = i * 10 + e;
          }
          return new Object[] {image, (long) i};
        });
  }

  static LoaderOptions options() {
    return LoaderOptions.builder().batchSize(4).dropLast(true).build();
  }

  @Test
  void shouldWrapAHostColumnWithoutACopy() {
    try (DataLoader loader = DataLoader.builder(dataset(8)).options(options()).build();
        PointerScope scope = new PointerScope()) {
      for (Batch batch : loader.epoch(0)) {
        Tensor images = TorchBatches.hostTensor(batch, "image");

        assertThat(images.data_ptr().address()).isEqualTo(TorchBatches.hostAddress(batch, "image"));
        assertThat(images.shape()).containsExactly(4, 2, 3);
        assertThat(images.scalar_type().value).isEqualTo(ScalarType.Float.value);
        int first = batch.index() * 4;
        FloatIndexer tensor = images.createIndexer();
        assertThat(tensor.get(1, 1, 2)).isEqualTo((first + 1) * 10 + 5);

        tensor.put(new long[] {3, 0, 1}, -7f); // a write through the tensor
        assertThat(batch.getFloat(0, 3, 1)).isEqualTo(-7f);

        // a write at the batch's own address, through the loader's view of the column
        new FloatPointer(new BytePointer(batch.column("image"))).put(0, 42f);
        assertThat(tensor.get(0, 0, 0)).isEqualTo(42f);
        assertThat(batch.getFloat(0, 0, 0)).isEqualTo(42f);
      }
    }
  }

  @Test
  void shouldWrapScalarLabelsAsAVectorOfTheValidRows() {
    try (DataLoader loader =
            DataLoader.builder(dataset(6))
                .options(LoaderOptions.builder().batchSize(4).dropLast(false).build())
                .build();
        PointerScope scope = new PointerScope()) {
      long rows = 0;
      for (Batch batch : loader.epoch(0)) {
        Tensor labels = TorchBatches.hostTensor(batch, "label");

        assertThat(labels.scalar_type().value).isEqualTo(ScalarType.Long.value);
        assertThat(labels.shape()).containsExactly(batch.size());
        LongIndexer values = labels.createIndexer();
        assertThat(values.get(batch.size() - 1)).isEqualTo(rows + batch.size() - 1);
        rows += batch.size();
      }
      assertThat(rows).isEqualTo(6);
    }
  }

  @Test
  void shouldRefuseABatchThatIsNoLongerValid() {
    try (DataLoader loader = DataLoader.builder(dataset(8)).options(options()).build()) {
      for (Batch batch : loader.epoch(0)) {
        batch.close();
        assertThatThrownBy(() -> TorchBatches.hostTensor(batch, "image"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is no longer valid: it was closed");
        break;
      }
    }
  }

  @Test
  void shouldRefuseADeviceBatch() {
    try (DataLoader loader =
        DataLoader.builder(dataset(8)).options(options()).device(new HostMemoryGpu()).build()) {
      for (Batch batch : loader.epoch(0)) {
        assertThatThrownBy(() -> TorchBatches.hostTensor(batch, "image"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("is on device 'cuda:0'");
        break;
      }
    }
  }
}
