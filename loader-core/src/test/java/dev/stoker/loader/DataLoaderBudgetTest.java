package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.SlotBudget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DataLoaderBudgetTest {
  /** One batch of 4 IndexDataset samples: x 4 x 12 B -> 64, label 4 x 8 B -> 64. */
  private static final int SLOT_BYTES = 128;

  private static LoaderOptions.Builder options(int numWorkers, int prefetchFactor) {
    return LoaderOptions.builder()
        .batchSize(4)
        .shuffle(true)
        .seed(11)
        .numWorkers(numWorkers)
        .prefetchFactor(prefetchFactor);
  }

  /** Epoch 0's labels, batch by batch. */
  private static List<List<Long>> labels(DataLoader loader) {
    List<List<Long>> batches = new ArrayList<>();
    for (Batch batch : loader.epoch(0)) {
      List<Long> labels = new ArrayList<>();
      for (long label : IndexDataset.labels(batch)) {
        labels.add(label);
      }
      batches.add(labels);
    }
    return batches;
  }

  @Test
  void shouldUseTheSlotSizeThisTestAssumes() {
    assertThat(new BatchLayout(IndexDataset.SCHEMA, 4).slotBytes()).isEqualTo(SLOT_BYTES);
  }

  @Test
  void shouldRefuseABudgetBelowOneSlotPerWorkerPlusTheConsumer() {
    LoaderOptions options = options(3, 2).maxHostBytes(3 * SLOT_BYTES + 127).build();
    assertThatThrownBy(() -> new DataLoader(new IndexDataset(100), options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "maxHostBytes: 511 fits 3 slot(s) of 128 bytes (one batch of 4 x "
                + "[x: float32[3], label: int64[]]) but numWorkers=3 needs at least 4 (one per worker, "
                + "one for the consumer); raise maxHostBytes to at least 512, or lower batchSize or "
                + "numWorkers");
  }

  @Test
  void shouldRefuseABudgetSmallerThanOneSlotWithoutWorkers() {
    LoaderOptions options = LoaderOptions.builder().batchSize(4).maxHostBytes(100).build();
    assertThatThrownBy(() -> new DataLoader(new IndexDataset(100), options))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxHostBytes: 100 fits 0 slot(s) of 128 bytes")
        .hasMessageContaining("numWorkers=0 needs at least 1 (the batch being loaded)")
        .hasMessageEndingWith(
            "raise maxHostBytes to at least 128, or lower batchSize or " + "numWorkers");
  }

  @ParameterizedTest(name = "{0} slots for numWorkers=3, prefetchFactor=2")
  @ValueSource(ints = {4, 5, 6})
  void shouldRunAFullEpochInOrderWithFewerSlotsThanWanted(int slots) {
    IndexDataset dataset = new IndexDataset(203).sleepingUpTo(200);
    DataLoader unlimited = new DataLoader(dataset, options(3, 2).build());
    DataLoader budgeted =
        new DataLoader(
            dataset,
            options(3, 2).maxHostBytes((long) slots * SLOT_BYTES + SLOT_BYTES / 2).build());
    try {
      List<List<Long>> expected = labels(unlimited);
      List<List<Long>> actual = labels(budgeted);

      assertThat(actual).hasSize(51).containsExactlyElementsOf(expected);
      assertThat(budgeted.pool().maxSlots()).isEqualTo(slots);
      assertThat(budgeted.pool().peakOutstanding()).isLessThanOrEqualTo(slots);
      assertThat(budgeted.pool().allocated()).isLessThanOrEqualTo(slots);
      assertThat(budgeted.metrics().last().slotLimit()).isEqualTo(slots);
      assertThat(unlimited.pool().maxSlots()).as("the window, the consumer's batch").isEqualTo(7);
    } finally {
      LoaderLeaks.closeAndCheck(unlimited);
      LoaderLeaks.closeAndCheck(budgeted);
    }
  }

  @Test
  void shouldRunEveryEpochOfPersistentWorkersWithTheNeededSlotsOnly() {
    IndexDataset dataset = new IndexDataset(90).sleepingUpTo(100);
    DataLoader unlimited = new DataLoader(dataset, options(2, 3).persistentWorkers(true).build());
    DataLoader budgeted =
        new DataLoader(
            dataset, options(2, 3).persistentWorkers(true).maxHostBytes(3 * SLOT_BYTES).build());
    try {
      for (int epoch = 0; epoch < 3; epoch++) {
        List<List<Long>> expected = new ArrayList<>();
        List<List<Long>> actual = new ArrayList<>();
        for (Batch batch : unlimited.epoch(epoch)) {
          expected.add(boxed(IndexDataset.labels(batch)));
        }
        for (Batch batch : budgeted.epoch(epoch)) {
          actual.add(boxed(IndexDataset.labels(batch)));
        }
        assertThat(actual).as("epoch %d", epoch).hasSize(23).containsExactlyElementsOf(expected);
      }
      assertThat(budgeted.pool().peakOutstanding()).isLessThanOrEqualTo(3);
    } finally {
      LoaderLeaks.closeAndCheck(unlimited);
      LoaderLeaks.closeAndCheck(budgeted);
    }
  }

  @ParameterizedTest(name = "numWorkers={0} prefetchFactor={1}")
  @CsvSource({"1, 1", "2, 2", "3, 2", "4, 3"})
  void shouldNeverHaveMoreThanTheWindowPlusOneSlotsOutWithASlowConsumer(
      int numWorkers, int prefetchFactor) throws InterruptedException {
    DataLoader loader =
        new DataLoader(new IndexDataset(100), options(numWorkers, prefetchFactor).build());
    int bound = numWorkers * prefetchFactor + 1;
    int batches = 0;
    try {
      for (Batch batch : loader.epoch(0)) {
        assertThat(loader.slotsOut()).isLessThanOrEqualTo(bound);
        Thread.sleep(2); // a slow consumer: the workers run ahead as far as they may
        batches++;
      }
      assertThat(batches).isEqualTo(25);
      assertThat(loader.pool().peakOutstanding()).isLessThanOrEqualTo(bound);
      assertThat(loader.pool().maxSlots()).isEqualTo(bound);
      assertThat(loader.pool().waits())
          .as("the window, not the pool, held the workers back")
          .isZero();
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  private static List<Long> boxed(long[] values) {
    List<Long> list = new ArrayList<>(values.length);
    for (long value : values) {
      list.add(value);
    }
    return list;
  }

  @Test
  void shouldCountTheSlotsOfEveryWorkerCountWithoutOverflow() {
    assertThatThrownBy(
            () ->
                SlotBudget.of(
                    4,
                    Long.MAX_VALUE,
                    Integer.MAX_VALUE,
                    Integer.MAX_VALUE,
                    true,
                    true,
                    "1 x [x: float32]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("numWorkers: 2147483647 (expected: 0 <= numWorkers <= 2147483645)");
    SlotBudget most =
        SlotBudget.of(4, Long.MAX_VALUE, Integer.MAX_VALUE - 2, 1, false, true, "1 x [x: float32]");
    assertThat(most.needed()).isEqualTo(Integer.MAX_VALUE);
    assertThatThrownBy(
            () -> SlotBudget.of(Integer.MAX_VALUE, 4L << 30, 1_000_000, 1, false, false, "big"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "maxHostBytes: 4294967296 fits 2 slot(s) of 2147483647 bytes "
                + "(one batch of big) but numWorkers=1000000 needs at least 1000001")
        .hasMessageContaining("raise maxHostBytes to at least 2147485794483647");
  }
}
