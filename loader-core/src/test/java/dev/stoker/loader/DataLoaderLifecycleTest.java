package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.DirectAllocator;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DataLoaderLifecycleTest {

  private static LoaderOptions.Builder workers(int n) {
    return LoaderOptions.builder().batchSize(4).numWorkers(n).prefetchFactor(2);
  }

  @ParameterizedTest(name = "persistentWorkers={0}")
  @ValueSource(booleans = {false, true})
  void shouldReturnEverySlotAndThreadWhenTheLoopIsClosedEarly(boolean persistent) {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(400).sleepingUpTo(100),
            workers(3).persistentWorkers(persistent).name("early-" + persistent).build());
    try (BatchIterator it = loader.epoch(0).iterator()) {
      it.next();
      it.next();
      assertThat(loader.slotsOut()).isPositive();
    }
    assertThat(loader.slotsOut()).isZero();
    if (!persistent) {
      assertThat(LoaderLeaks.threadsOf(loader.name())).isEmpty();
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldStartWorkersOncePersistentAndPerEpochOtherwise() {
    IndexDataset persistentData = new IndexDataset(64);
    IndexDataset perEpochData = new IndexDataset(64);
    DataLoader persistent =
        new DataLoader(persistentData, workers(2).persistentWorkers(true).name("keep").build());
    DataLoader perEpoch = new DataLoader(perEpochData, workers(2).name("fresh").build());
    for (int epoch = 0; epoch < 3; epoch++) {
      persistent.epoch(epoch).forEach(Batch::close);
      perEpoch.epoch(epoch).forEach(Batch::close);
      assertThat(LoaderLeaks.threadsOf("fresh"))
          .as("per-epoch workers end with the epoch")
          .isEmpty();
      assertThat(LoaderLeaks.threadsOf("keep")).hasSize(2);
    }
    assertThat(persistentData.writerThreads)
        .containsExactlyInAnyOrder("keep-worker-0", "keep-worker-1");
    assertThat(perEpochData.writerThreads)
        .containsExactlyInAnyOrder(
            "fresh-e0-worker-0",
            "fresh-e0-worker-1",
            "fresh-e1-worker-0",
            "fresh-e1-worker-1",
            "fresh-e2-worker-0",
            "fresh-e2-worker-1");
    LoaderLeaks.closeAndCheck(persistent);
    LoaderLeaks.closeAndCheck(perEpoch);
  }

  @Test
  void shouldReturnEverySlotWhenTheNextEpochStartsAfterABreak() {
    DataLoader loader = new DataLoader(new IndexDataset(200), workers(2).build());
    for (Batch batch : loader.epoch(0)) {
      if (batch.index() == 3) {
        break;
      }
    }
    List<Integer> indices = new ArrayList<>();
    for (Batch batch : loader.epoch(1)) {
      indices.add(batch.index());
    }
    assertThat(indices).hasSize(50);
    assertThat(loader.slotsOut()).isEqualTo(1); // the last batch, until closed
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldReturnEverySlotWhenTheLoaderIsClosedMidEpoch() {
    DataLoader loader = new DataLoader(new IndexDataset(400), workers(4).build());
    BatchIterator it = loader.epoch(0).iterator();
    it.next();
    LoaderLeaks.closeAndCheck(loader);
    assertThat(it.hasNext()).isFalse();
    assertThatThrownBy(() -> loader.epoch(1).iterator())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("loader '" + loader.name() + "' is closed");
    loader.close(); // twice is fine
  }

  @Test
  void shouldRefuseToReadABatchAfterItWasClosed() {
    DataLoader loader = new DataLoader(new IndexDataset(16), workers(1).build());
    BatchIterator it = loader.epoch(0).iterator();
    Batch first = it.next();
    first.close();
    first.close();
    assertThatThrownBy(() -> first.getLong(1, 0, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "batch 0 of epoch 0 (loader '"
                + loader.name()
                + "') is no longer valid: it "
                + "was closed; its memory now holds other batches");
    it.close();
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldReturnTheBatchBeforeWhenTheNextOneIsAskedFor() {
    DataLoader loader =
        new DataLoader(new IndexDataset(16), LoaderOptions.builder().batchSize(4).build());
    try (BatchIterator it = loader.epoch(0).iterator()) {
      it.next();
      assertThat(loader.slotsOut()).isEqualTo(1);
      Batch second = it.next();
      assertThat(loader.slotsOut()).as("the first batch went back").isEqualTo(1);
      assertThat(second.index()).isEqualTo(1);
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldDeliverAWorkerFailureAtItsBatchWithContextAndStayUsable(int numWorkers) {
    IndexDataset dataset = new IndexDataset(100).failingOn(41);
    LoaderOptions.Builder options = LoaderOptions.builder().batchSize(10).numWorkers(numWorkers);
    DataLoader loader = new DataLoader(dataset, options.build());
    List<Integer> seen = new ArrayList<>();
    assertThatThrownBy(
            () -> {
              for (Batch batch : loader.epoch(0)) {
                seen.add(batch.index());
              }
            })
        .isInstanceOf(BatchLoadException.class)
        .hasMessageContaining("epoch 0 batch 4 (fill): sample 41 (row 1 of 10)")
        .hasMessageContaining("sample 41 is corrupt")
        .hasMessageContaining("set onBadSample=skip")
        .hasRootCauseMessage("sample 41 is corrupt")
        .satisfies(
            e -> {
              BatchLoadException failure = (BatchLoadException) e;
              assertThat(failure.epoch()).isZero();
              assertThat(failure.batch()).isEqualTo(4);
              assertThat(failure.sampleIndex()).isEqualTo(41);
            });
    assertThat(seen).containsExactly(0, 1, 2, 3);
    assertThat(loader.slotsOut()).isZero();
    dataset.failingOn();
    int batches = 0;
    for (Batch ignored : loader.epoch(1)) {
      batches++;
    }
    assertThat(batches).isEqualTo(10);
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldSkipBadSamplesAndReportThem() {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(40).failingOn(5, 6, 33),
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(2)
                .onBadSample(OnBadSample.SKIP)
                .build());
    List<Integer> sizes = new ArrayList<>();
    List<Long> labels = new ArrayList<>();
    for (Batch batch : loader.epoch(0)) {
      sizes.add(batch.size());
      for (long label : IndexDataset.labels(batch)) {
        labels.add(label);
      }
    }
    assertThat(sizes).containsExactly(8, 10, 10, 9);
    assertThat(labels).hasSize(37).doesNotContain(5L, 6L, 33L);
    var metrics = loader.metrics().last();
    assertThat(metrics.skippedCount()).isEqualTo(3);
    assertThat(metrics.skipped())
        .extracting(s -> s.sampleIndex())
        .containsExactlyInAnyOrder(5, 6, 33);
    assertThat(metrics.skipped().get(0).reason()).contains("is corrupt");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldTimeOutWithWhatEveryWorkerIsDoingAndCloseCleanly() {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(40).hangingOn(13),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(2)
                .timeout(Duration.ofMillis(300))
                .name("hangs")
                .build());
    assertThatThrownBy(
            () -> {
              for (Batch ignored : loader.epoch(0)) {
                // consume
              }
            })
        .isInstanceOf(LoaderTimeoutException.class)
        .hasMessageContaining(
            "loader 'hangs' epoch 0: batch 3 of 10 did not come within "
                + "timeout=300 ms; it is hangs-e0-worker-1's to fill: hangs-e0-worker-1: filling "
                + "batch 3, row 1 of 4 (sample 13)");
    assertThat(loader.slotsOut()).isZero();
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldLetGoOfEverySlotOnCloseSoThatOnlyTheUsersOwnViewsKeepMemory(int numWorkers)
      throws Exception {
    DirectAllocator allocator = new DirectAllocator("let-go-" + numWorkers, 1 << 20);
    DataLoader loader =
        DataLoader.builder(new IndexDataset(64))
            .allocator(allocator)
            .options(LoaderOptions.builder().batchSize(4).numWorkers(numWorkers).build())
            .build();
    ByteBuffer kept = null;
    for (Batch batch : loader.epoch(0)) {
      batch.column("x"); // a view of every slot, dropped at once
      if (batch.index() == 3) {
        kept = batch.buffer();
      }
    }
    BatchIterator running = loader.epoch(1).iterator();
    Batch held = running.next();
    held.buffer();
    loader.close();
    int slotBytes = loader.layout().slotBytes();

    assertThat(collectUntilAtMost(allocator, slotBytes))
        .as("only the kept view's slot")
        .isEqualTo(slotBytes);
    Reference.reachabilityFence(kept);
    kept = null;
    assertThat(collectUntilAtMost(allocator, 0)).as("nothing once the view is dropped").isZero();
    Reference.reachabilityFence(loader); // the loader, its iterator and batch stay referenced
    Reference.reachabilityFence(running);
    Reference.reachabilityFence(held);
    allocator.close();
  }

  /** Forces collections (a bounded number) until the allocator holds at most {@code bytes}. */
  private static long collectUntilAtMost(DirectAllocator allocator, long bytes)
      throws InterruptedException {
    for (int i = 0; i < 200 && allocator.allocatedBytes() > bytes; i++) {
      System.gc();
      Thread.sleep(5);
    }
    return allocator.allocatedBytes();
  }
}
