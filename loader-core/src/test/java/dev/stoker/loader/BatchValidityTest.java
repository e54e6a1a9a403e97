package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A batch cannot be misread: its views are its own, and a stale batch says so. */
class BatchValidityTest {

  private static DataLoader loader(int numWorkers, String name) {
    return new DataLoader(
        new IndexDataset(64),
        LoaderOptions.builder().batchSize(4).numWorkers(numWorkers).name(name).build());
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldGiveViewsWhosePositionLimitAndOrderAreTheirOwn(int numWorkers) {
    DataLoader loader = loader(numWorkers, "views-" + numWorkers);
    int labels = loader.layout().columnOffset(1);
    long expectedSum = 0;
    long sum = 0;
    for (Batch batch : loader.epoch(0)) {
      ByteBuffer whole = batch.buffer();
      ByteBuffer column = batch.column("label");
      assertThat(whole.order()).isEqualTo(ByteOrder.nativeOrder());
      assertThat(whole.position()).isZero();
      assertThat(column.position()).isZero();
      assertThat(column.limit()).isEqualTo(batch.size() * Long.BYTES);
      for (int r = 0; r < batch.size(); r++) {
        sum += whole.getLong(labels + r * Long.BYTES);
        expectedSum += batch.sampleIndex(r);
        assertThat(column.getLong()).isEqualTo(batch.sampleIndex(r)); // relative reads
      }
      // What a careless consumer does to its views must not reach any other batch.
      whole.order(ByteOrder.BIG_ENDIAN).position(7).limit(9);
      column.order(ByteOrder.BIG_ENDIAN).limit(1);
    }
    assertThat(sum).isEqualTo(expectedSum).isEqualTo(64L * 63 / 2);
    assertThat(countValid(loader, 1)).as("later epochs fill and read as before").isEqualTo(16);
    LoaderLeaks.closeAndCheck(loader);
  }

  private static int countValid(DataLoader loader, int epoch) {
    int batches = 0;
    for (Batch batch : loader.epoch(epoch)) {
      IndexDataset.labels(batch);
      ByteBuffer whole = batch.buffer();
      assertThat(whole.getLong(batch.layout().columnOffset(1))).isEqualTo(batch.sampleIndex(0));
      batches++;
    }
    return batches;
  }

  @Test
  void shouldGiveReadOnlyViews() {
    DataLoader loader = loader(0, "readonly");
    try (BatchIterator it = loader.epoch(0).iterator()) {
      Batch batch = it.next();
      assertThat(batch.buffer().isReadOnly()).isTrue();
      assertThat(batch.column("x").isReadOnly()).isTrue();
      assertThatThrownBy(() -> batch.buffer().putLong(0, 1L))
          .isInstanceOf(ReadOnlyBufferException.class);
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldMakeEveryBatchHandedOutAnObjectOfItsOwn(int numWorkers) {
    DataLoader loader = loader(numWorkers, "distinct-" + numWorkers);
    List<Batch> collected = new ArrayList<>();
    for (Batch batch : loader.epoch(0)) {
      collected.add(batch);
    }
    assertThat(collected).hasSize(16).doesNotHaveDuplicates();
    for (int i = 0; i < collected.size(); i++) {
      assertThat(collected.get(i).index()).isEqualTo(i);
      assertThat(collected.get(i).isOpen()).isEqualTo(i == 15);
    }
    Batch stale = collected.get(3);
    assertThatThrownBy(() -> stale.getLong(1, 0, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "batch 3 of epoch 0 (loader 'distinct-"
                + numWorkers
                + "') is no longer "
                + "valid: the next batch was asked for (a batch is valid until then; copy what you "
                + "need to keep); its memory now holds other batches");
    assertThat(IndexDataset.labels(collected.get(15))).hasSize(4);
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldNeverCloseTheCurrentBatchWhenClosingAnEarlierOne() {
    DataLoader loader = loader(2, "earlier");
    try (BatchIterator it = loader.epoch(0).iterator()) {
      Batch first = it.next();
      Batch second = it.next();
      first.close();
      first.close();
      assertThat(second.isOpen()).isTrue();
      assertThat(IndexDataset.labels(second)).hasSize(4);
      second.close();
      assertThat(second.isOpen()).isFalse();
      Batch third = it.next();
      assertThat(third.index()).isEqualTo(2);
      assertThat(IndexDataset.labels(third)).hasSize(4);
    }
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldSayWhyABatchIsNoLongerValid() {
    DataLoader loader = loader(1, "why");
    BatchIterator it = loader.epoch(0).iterator();
    Batch closed = it.next();
    closed.close();
    Batch last = it.next();
    it.close();
    assertThatThrownBy(() -> closed.getFloat(0, 0, 0))
        .hasMessageContaining(
            "batch 0 of epoch 0 (loader 'why') is no longer valid: it was closed");
    assertThatThrownBy(last::buffer)
        .hasMessageContaining(
            "batch 1 of epoch 0 (loader 'why') is no longer valid: its epoch was closed");
    Batch afterLoader = loader.epoch(1).iterator().next();
    loader.close();
    assertThatThrownBy(() -> afterLoader.column("x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("batch 0 of epoch 1 (loader 'why') is no longer valid");
    assertThatThrownBy(() -> afterLoader.sampleIndex(0)).isInstanceOf(IllegalStateException.class);
    afterLoader.close(); // closing a batch its loader already took back does nothing
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldKeepReadingAKeptViewWithoutCrashingAfterTheLoaderIsClosed() {
    DataLoader loader = loader(2, "kept");
    List<ByteBuffer> kept = new ArrayList<>();
    for (int epoch = 0; epoch < 3; epoch++) {
      for (Batch batch : loader.epoch(epoch)) {
        kept.add(batch.buffer());
      }
    }
    LoaderLeaks.closeAndCheck(loader);
    System.gc();
    long read = 0;
    for (ByteBuffer view : kept) {
      for (int i = 0; i < view.capacity(); i += Long.BYTES) {
        read += view.getLong(i) == Long.MIN_VALUE ? 0 : 1;
      }
    }
    assertThat(read).as("every kept view still readable").isPositive();
  }
}
