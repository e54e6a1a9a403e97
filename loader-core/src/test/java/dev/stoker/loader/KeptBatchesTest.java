package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.device.HostCopyDevice;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Kept batches ({@link BatchIterator#nextKept()}): several open at once, each valid until it is
 * closed, in order and whole, never more than the slots, and all of them ended with the epoch.
 */
class KeptBatchesTest {

  private static DataLoader loader(int numWorkers, int prefetchFactor, String name) {
    LoaderOptions.Builder options =
        LoaderOptions.builder().batchSize(4).numWorkers(numWorkers).name(name);
    if (numWorkers > 0) {
      options.prefetchFactor(prefetchFactor);
    }
    return new DataLoader(new IndexDataset(64).sleepingUpTo(200), options.build());
  }

  @ParameterizedTest(name = "numWorkers={0} prefetchFactor={1}")
  @CsvSource({"0, 1", "1, 2", "2, 2", "3, 1"})
  void shouldKeepUpToTheSlotsOpenAndDeliverEveryBatchInOrderWhole(
      int numWorkers, int prefetchFactor) {
    DataLoader loader = loader(numWorkers, prefetchFactor, "kept-" + numWorkers);
    List<Long> labels = new ArrayList<>();
    try (BatchIterator it = loader.epoch(0).iterator()) {
      int limit = it.keepLimit();
      assertThat(limit).isEqualTo(numWorkers == 0 ? 1 : numWorkers * prefetchFactor + 1);
      ArrayDeque<Batch> open = new ArrayDeque<>();
      while (it.hasNext()) {
        if (open.size() == limit) {
          Batch oldest = open.removeFirst();
          for (long label : IndexDataset.labels(oldest)) {
            labels.add(label);
          }
          oldest.close();
        }
        open.addLast(it.nextKept());
        for (Batch batch : open) {
          assertThat(batch.isOpen()).as("every kept batch stays valid").isTrue();
        }
        assertThat(loader.pool().outstanding()).isLessThanOrEqualTo(limit);
      }
      for (Batch batch : open) {
        for (long label : IndexDataset.labels(batch)) {
          labels.add(label);
        }
      }
    }
    assertThat(labels).hasSize(64).doesNotHaveDuplicates();
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldRefuseABatchNoSlotIsLeftForAndStayUsable() {
    DataLoader loader = loader(1, 2, "full");
    try (BatchIterator it = loader.epoch(0).iterator()) {
      List<Batch> kept = new ArrayList<>();
      for (int k = 0; k < it.keepLimit(); k++) {
        kept.add(it.nextKept());
      }
      assertThatThrownBy(it::nextKept)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "loader 'full' epoch 0: 3 batches are open (kept) and the loader has 3 "
                  + "host slots, so batch 3 could never be filled; close a kept batch before asking "
                  + "for the next (keepLimit() = 3)");
      kept.get(0).close();
      Batch next = it.nextKept();
      assertThat(next.index()).isEqualTo(3);
      assertThat(IndexDataset.labels(next)).hasSize(4);
      assertThat(kept.get(1).isOpen()).isTrue();
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldEndEveryKeptBatchWithItsEpochAndTheBatchOfTheLastNext() {
    DataLoader loader = loader(2, 2, "ends");
    BatchIterator it = loader.epoch(0).iterator();
    Batch plain = it.next();
    Batch first = it.nextKept();
    assertThat(plain.isOpen()).as("asking for the next batch ends next()'s").isFalse();
    Batch second = it.nextKept();
    Batch third = it.next();
    assertThat(first.isOpen()).as("next() leaves kept batches alone").isTrue();
    assertThat(second.isOpen()).isTrue();
    it.close();
    assertThat(List.of(first, second, third)).noneMatch(Batch::isOpen);
    assertThatThrownBy(first::buffer)
        .hasMessageContaining(
            "batch 1 of epoch 0 (loader 'ends') is no longer valid: its epoch was closed");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldRefuseKeptBatchesOnADevice() {
    DataLoader loader =
        DataLoader.builder(new IndexDataset(16))
            .options(LoaderOptions.builder().batchSize(4).name("device").build())
            .device(new HostCopyDevice())
            .build();
    try (BatchIterator it = loader.epoch(0).iterator()) {
      assertThat(it.keepLimit()).isZero();
      assertThatThrownBy(it::nextKept)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "loader 'device' delivers to a device: kept batches are host batches "
                  + "(use next(), and copy on the device what must outlive the step)");
      assertThat(IndexDataset.labels(it.next())).hasSize(4);
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldGiveASlotForEachBatchKeptAheadSoThatTheInlineFillGoesOnBesideIt() {
    DataLoader loader =
        DataLoader.builder(new IndexDataset(64))
            .options(LoaderOptions.builder().batchSize(4).name("ahead").build())
            .keptAhead(1)
            .build();
    try (BatchIterator it = loader.epoch(0).iterator()) {
      assertThat(it.keepLimit()).isEqualTo(2);
      Batch stepping = it.nextKept();
      Batch next = it.nextKept(); // filled in this thread while the first stays valid
      assertThat(stepping.isOpen()).isTrue();
      assertThat(IndexDataset.labels(stepping)).hasSize(4);
      assertThat(IndexDataset.labels(next)).hasSize(4);
      assertThatThrownBy(it::nextKept)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("2 batches are open (kept) and the loader has 2 host slots");
    }
    LoaderLeaks.closeAndCheck(loader);
    assertThatThrownBy(() -> DataLoader.builder(new IndexDataset(4)).keptAhead(-1))
        .hasMessage("keptAhead: -1 (expected: 0 <= keptAhead <= 4096)");
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "2"})
  void shouldKeepBatchesOfAStreamOfUnknownLengthWhoseLookAheadHoldsASlot(int numWorkers) {
    TestStream stream = TestStream.unknown(95).chunks(7);
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(numWorkers)
                .dropLast(false)
                .name("stream-" + numWorkers)
                .build());
    List<Long> labels = new ArrayList<>();
    try (BatchIterator it = loader.epoch(0).iterator()) {
      int limit = it.keepLimit();
      assertThat(limit)
          .as("the consumer's, the look-ahead's and the workers' slots")
          .isEqualTo(numWorkers == 0 ? 2 : numWorkers * 2 + 2);
      ArrayDeque<Batch> open = new ArrayDeque<>();
      while (true) {
        if (open.size() == limit - 1) { // hasNext() takes the next batch into a slot of its own
          for (long label : StreamedRows.rows(open.peekFirst())) {
            labels.add(label);
          }
          open.removeFirst().close();
        }
        if (!it.hasNext()) {
          break;
        }
        open.addLast(it.nextKept());
      }
      for (Batch batch : open) {
        for (long label : StreamedRows.rows(batch)) {
          labels.add(label);
        }
      }
    }
    assertThat(labels).containsExactlyElementsOf(StreamedRows.range(95));
    stream.closeAndCheck(loader);
  }
}
