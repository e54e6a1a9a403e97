package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.device.HostCopyDevice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DataLoaderTransferTest {

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldDeliverDeviceCopiesInOrderAndReturnEveryBuffer(int numWorkers) {
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader =
        new DataLoader(
            new IndexDataset(100),
            LoaderOptions.builder()
                .batchSize(8)
                .shuffle(true)
                .seed(5)
                .numWorkers(numWorkers)
                .transferDepth(3)
                .build(),
            device);
    List<Long> viaDevice = new ArrayList<>();
    List<Long> expected = new ArrayList<>();
    for (Batch batch : loader.epoch(0)) {
      for (long label : IndexDataset.labels(batch)) {
        viaDevice.add(label);
      }
      for (int r = 0; r < batch.size(); r++) {
        expected.add(batch.sampleIndex(r));
      }
    }
    assertThat(viaDevice).hasSize(100).containsExactlyElementsOf(expected).doesNotHaveDuplicates();
    assertThat(device.copies()).isEqualTo(13);
    assertThat(loader.metrics().last().transferBatches()).isEqualTo(13);
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
    assertThat(device.allEnginesClosed()).isTrue();
  }

  @ParameterizedTest(name = "stop after {0} batches")
  @ValueSource(ints = {0, 1, 5})
  void shouldReturnHostSlotsAndDeviceBuffersOnEarlyClose(int consumed) {
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader =
        new DataLoader(
            new IndexDataset(400).sleepingUpTo(50),
            LoaderOptions.builder().batchSize(4).numWorkers(3).name("transfer-" + consumed).build(),
            device);
    try (BatchIterator it = loader.epoch(0).iterator()) {
      for (int i = 0; i < consumed; i++) {
        it.next();
      }
    }
    assertThat(loader.slotsOut()).isZero();
    assertThat(device.buffersOut()).isZero();
    assertThat(LoaderLeaks.threadsOf(loader.name()))
        .as("the epoch's workers stopped; the transfer thread lives as long as the loader")
        .containsExactly(loader.name() + "-transfer");
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
  }
}
