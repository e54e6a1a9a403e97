package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.device.DeviceEvent;
import dev.stoker.loader.device.HostCopyDevice;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a GPU device plugs into: the engine's thread, slot release, columns, the allocator. */
class DeviceSeamTest {

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldOpenUseAndCloseOneEnginePerLoaderOnItsTransferThread(int numWorkers) {
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader =
        new DataLoader(
            new IndexDataset(40),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(numWorkers)
                .name("engine-" + numWorkers)
                .build(),
            device);
    for (int epoch = 0; epoch < 3; epoch++) {
      for (Batch batch : loader.epoch(epoch)) {
        IndexDataset.labels(batch);
      }
    }
    LoaderLeaks.closeAndCheck(loader);
    String thread = "engine-" + numWorkers + "-transfer";
    assertThat(device.enginesOpened()).as("one engine for the loader's life").isEqualTo(1);
    assertThat(device.engineThreads())
        .containsExactly("open:" + thread, "copy:" + thread, "close:" + thread);
    assertThat(device.buffersOut()).isZero();
  }

  @Test
  void shouldReturnTheHostSlotOnceItsCopyHasCompletedNotWhenTheBatchIsClosed() {
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader =
        new DataLoader(new IndexDataset(40), LoaderOptions.builder().batchSize(4).build(), device);
    try (BatchIterator it = loader.epoch(0).iterator()) {
      Batch held = it.next();
      assertThat(held.onDevice()).isTrue();
      assertThat(loader.slotsOut()).as("the host slot is back while the batch is held").isZero();
      assertThat(device.buffersOut()).as("the device buffer is the consumer's").isEqualTo(1);
      held.close();
      assertThat(device.buffersOut()).isZero();
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldWriteSamplesOnTheCallersThreadWithoutWorkers() {
    IndexDataset dataset = new IndexDataset(40);
    DataLoader loader =
        new DataLoader(dataset, LoaderOptions.builder().batchSize(4).build(), new HostCopyDevice());
    for (Batch batch : loader.epoch(0)) {
      IndexDataset.labels(batch);
    }
    assertThat(dataset.writerThreads).containsExactly(Thread.currentThread().getName());
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldDescribeEachColumnOnTheDeviceWithoutDowncasts() {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(40),
            LoaderOptions.builder().batchSize(4).numWorkers(1).build(),
            new HostCopyDevice());
    try (BatchIterator it = loader.epoch(0).iterator()) {
      Batch batch = it.next();
      DeviceColumn x = batch.deviceColumn("x");
      DeviceColumn label = batch.deviceColumn("label");
      long base = batch.deviceBuffer().address();
      assertThat(x.dtype()).isEqualTo(DType.FLOAT32);
      assertThat(x.shape()).containsExactly(4, 3);
      assertThat(x.address()).isEqualTo(base + loader.layout().columnOffset(0));
      assertThat(x.bytes()).isEqualTo(4 * 3 * Float.BYTES);
      assertThat(label.dtype()).isEqualTo(DType.INT64);
      assertThat(label.shape()).containsExactly(4);
      assertThat(label.address()).isEqualTo(base + loader.layout().columnOffset(1));
      assertThat(batch.deviceEvent()).isSameAs(DeviceEvent.COMPLETED);
      assertThat(batch.deviceEvent().isComplete()).isTrue();
      assertThat(batch.deviceEvent().handle())
          .as("no native event for a synchronous copy")
          .isZero();
      assertThatThrownBy(() -> batch.getLong(1, 0, 0))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is on device 'hostcopy': read it there (deviceColumn)");
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldRefuseDeviceReadsOfABatchInHostMemory() {
    DataLoader loader =
        new DataLoader(new IndexDataset(8), LoaderOptions.builder().batchSize(4).build());
    try (BatchIterator it = loader.epoch(0).iterator()) {
      Batch batch = it.next();
      assertThat(batch.onDevice()).isFalse();
      assertThatThrownBy(() -> batch.deviceColumn("x"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is in host memory (the loader's device is the CPU)");
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldUseTheAllocatorItIsGivenAndLeaveItToItsOwner() {
    DirectAllocator pinned = new DirectAllocator("pinned(test)", 1 << 20);
    DataLoader loader =
        DataLoader.builder(new IndexDataset(40))
            .options(LoaderOptions.builder().batchSize(4).numWorkers(2).build())
            .allocator(pinned)
            .device(new HostCopyDevice())
            .build();
    assertThat(loader.allocator()).isSameAs(pinned);
    for (Batch batch : loader.epoch(0)) {
      IndexDataset.labels(batch);
      assertThat(pinned.allocatedBytes()).isPositive();
    }
    LoaderLeaks.closeAndCheck(loader);
    assertThat(pinned.openBytes()).as("every slot given back").isZero();
    HostMemory stillUsable = pinned.allocate(64);
    stillUsable.close();
    pinned.close();
  }

  @Test
  void shouldKeepSlotsForTheLoadersWholeLife() {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(80), LoaderOptions.builder().batchSize(4).numWorkers(2).build());
    for (Batch batch : loader.epoch(0)) {
      IndexDataset.labels(batch);
    }
    int slots = loader.slotsAllocated();
    assertThat(slots).isPositive();
    for (int epoch = 1; epoch < 4; epoch++) {
      for (Batch batch : loader.epoch(epoch)) {
        IndexDataset.labels(batch);
      }
      assertThat(loader.slotsAllocated())
          .as("no slot freed and allocated again between epochs")
          .isGreaterThanOrEqualTo(slots);
    }
    LoaderLeaks.closeAndCheck(loader);
  }
}
