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
    DataLoader loader = new DataLoader(new IndexDataset(100), LoaderOptions.builder()
        .batchSize(8).shuffle(true).seed(5).numWorkers(numWorkers).transferDepth(3).build(),
        device);
    List<Long> viaDevice = new ArrayList<>();
    List<Long> viaHost = new ArrayList<>();
    for (Batch batch : loader.epoch(0)) {
      HostCopyDevice.Buffer buffer = (HostCopyDevice.Buffer) batch.deviceBuffer();
      int labels = loader.layout().columnOffset(1);
      for (int r = 0; r < batch.size(); r++) {
        viaDevice.add(buffer.memory().bytes().getLong(labels + r * 8));
        viaHost.add(batch.getLong(1, r, 0));
      }
    }
    assertThat(viaDevice).hasSize(100).containsExactlyElementsOf(viaHost)
        .doesNotHaveDuplicates();
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
    DataLoader loader = new DataLoader(new IndexDataset(400).sleepingUpTo(50),
        LoaderOptions.builder().batchSize(4).numWorkers(3).name("transfer-" + consumed).build(),
        device);
    try (BatchIterator it = loader.epoch(0).iterator()) {
      for (int i = 0; i < consumed; i++) {
        it.next();
      }
    }
    assertThat(loader.slotsOut()).isZero();
    assertThat(LoaderLeaks.threadsOf(loader.name())).isEmpty();
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
  }
}
