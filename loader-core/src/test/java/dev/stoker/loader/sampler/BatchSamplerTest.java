package dev.stoker.loader.sampler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BatchSamplerTest {
  private static final int CASES = 400;

  private static int[] concatenate(EpochBatches batches) {
    int[] out = new int[0];
    for (int b = 0; b < batches.batchCount(); b++) {
      int[] batch = new int[batches.batchLength(b)];
      for (int row = 0; row < batch.length; row++) {
        batch[row] = batches.sampleIndex(b, row);
      }
      assertThat(batch)
          .isEqualTo(
              Arrays.copyOfRange(
                  batches.indices(),
                  batches.batchStart(b),
                  batches.batchStart(b) + batches.batchLength(b)));
      int[] grown = Arrays.copyOf(out, out.length + batch.length);
      System.arraycopy(batch, 0, grown, out.length, batch.length);
      out = grown;
    }
    return out;
  }

  @Test
  void shouldCountFullBatchesAndAShortTailWithoutDropLast() {
    BatchSampler batches = new BatchSampler(new SequentialSampler(10), 4, false);
    assertThat(batches.batchCount()).isEqualTo(3);
    assertThat(batches.droppedSamples()).isZero();
    EpochBatches epoch = batches.epoch(0);
    assertThat(epoch.batchLength(0)).isEqualTo(4);
    assertThat(epoch.batchLength(2)).isEqualTo(2);
    assertThat(epoch.batchStart(2)).isEqualTo(8);
    assertThat(epoch.sampleIndex(2, 1)).isEqualTo(9);
  }

  @Test
  void shouldDropTheShortTailWithDropLast() {
    BatchSampler batches = new BatchSampler(new SequentialSampler(10), 4, true);
    assertThat(batches.batchCount()).isEqualTo(2);
    assertThat(batches.droppedSamples()).isEqualTo(2);
    assertThat(batches.dropLast()).isTrue();
    assertThat(batches.batchSize()).isEqualTo(4);
    assertThat(concatenate(batches.epoch(0))).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  void shouldHaveNoBatchesForAnEmptySampler() {
    for (boolean dropLast : new boolean[] {false, true}) {
      BatchSampler batches = new BatchSampler(new SequentialSampler(0), 3, dropLast);
      assertThat(batches.batchCount()).isZero();
      assertThat(batches.epoch(0).batchCount()).isZero();
      assertThat(batches.droppedSamples()).isZero();
    }
  }

  @Test
  void shouldConcatenateBatchesToTheSamplerOrderMinusTheDroppedTail() {
    Random random = new Random(10);
    for (int c = 0; c < CASES; c++) {
      int n = random.nextInt(300);
      int batchSize = 1 + random.nextInt(40);
      boolean dropLast = random.nextBoolean();
      long seed = random.nextLong();
      int epoch = random.nextInt(50);
      String description =
          String.format(
              "n=%d batchSize=%d dropLast=%b seed=%d epoch=%d",
              n, batchSize, dropLast, seed, epoch);
      RandomSampler sampler = new RandomSampler(n, seed);
      BatchSampler batches = new BatchSampler(sampler, batchSize, dropLast);
      int expectedCount = dropLast ? n / batchSize : (n + batchSize - 1) / batchSize;
      assertThat(batches.batchCount()).as(description).isEqualTo(expectedCount);

      EpochBatches view = batches.epoch(epoch);
      assertThat(view.epoch()).isEqualTo(epoch);
      assertThat(view.batchCount()).isEqualTo(expectedCount);
      assertThat(view.batchSize()).isEqualTo(batchSize);
      for (int b = 0; b < view.batchCount(); b++) {
        boolean last = b == view.batchCount() - 1;
        int expectedLength = last && !dropLast && n % batchSize != 0 ? n % batchSize : batchSize;
        assertThat(view.batchLength(b)).as("%s batch=%d", description, b).isEqualTo(expectedLength);
      }
      int[] order = sampler.indices(epoch);
      assertThat(concatenate(view))
          .as(description)
          .isEqualTo(Arrays.copyOf(order, n - batches.droppedSamples()));
      assertThat(batches.droppedSamples()).as(description).isEqualTo(dropLast ? n % batchSize : 0);
    }
  }

  @Test
  void shouldGiveEveryRankTheSameBatchCount() {
    Random random = new Random(11);
    for (int c = 0; c < CASES; c++) {
      int n = random.nextInt(300);
      int worldSize = 1 + random.nextInt(16);
      int batchSize = 1 + random.nextInt(20);
      boolean samplerDropLast = random.nextBoolean();
      boolean batchDropLast = random.nextBoolean();
      long seed = random.nextLong();
      int epoch = random.nextInt(50);
      int[] counts = new int[worldSize];
      int[] lastLengths = new int[worldSize];
      for (int r = 0; r < worldSize; r++) {
        BatchSampler batches =
            new BatchSampler(
                new DistributedSampler(n, r, worldSize, true, seed, samplerDropLast),
                batchSize,
                batchDropLast);
        EpochBatches view = batches.epoch(epoch);
        counts[r] = view.batchCount();
        lastLengths[r] = counts[r] == 0 ? 0 : view.batchLength(counts[r] - 1);
      }
      String description =
          String.format(
              "n=%d worldSize=%d batchSize=%d dropLast=%b/%b",
              n, worldSize, batchSize, samplerDropLast, batchDropLast);
      assertThat(counts).as(description).containsOnly(counts[0]);
      assertThat(lastLengths).as(description).containsOnly(lastLengths[0]);
    }
  }

  @Test
  void shouldReplayTheSameBatchesOnARetry() {
    Random random = new Random(12);
    for (int c = 0; c < CASES; c++) {
      int n = random.nextInt(300);
      int batchSize = 1 + random.nextInt(40);
      boolean dropLast = random.nextBoolean();
      long seed = random.nextLong();
      int epoch = random.nextInt(50);
      int[] first =
          concatenate(
              new BatchSampler(new RandomSampler(n, seed), batchSize, dropLast).epoch(epoch));
      int[] retry =
          concatenate(
              new BatchSampler(new RandomSampler(n, seed), batchSize, dropLast).epoch(epoch));
      assertThat(retry).isEqualTo(first);
    }
  }

  @Test
  void shouldRejectASamplerThatBreaksItsLengthContract() {
    Sampler liar =
        new Sampler() {
          @Override
          public int length() {
            return 3;
          }

          @Override
          public int[] indices(int epoch) {
            return new int[2];
          }
        };
    assertThatThrownBy(() -> new BatchSampler(liar, 2, false).epoch(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("returned 2 indices for epoch 0 (expected: length() = 3)");
  }

  @Test
  void shouldRejectBadArgumentsWithExactMessages() {
    Sampler sampler = new SequentialSampler(10);
    assertThatThrownBy(() -> new BatchSampler(sampler, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> new BatchSampler(null, 2, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sampler: null (expected: non-null)");
    BatchSampler batches = new BatchSampler(sampler, 2, false);
    assertThatThrownBy(() -> batches.epoch(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch: -1 (expected: >= 0)");
    EpochBatches view = batches.epoch(0);
    assertThatThrownBy(() -> view.batchStart(7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batch: 7 (expected: 0 <= batch < batchCount = 5)");
    assertThatThrownBy(() -> view.batchLength(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batch: -1 (expected: 0 <= batch < batchCount = 5)");
    assertThatThrownBy(() -> view.sampleIndex(5, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batch: 5 (expected: 0 <= batch < batchCount = 5)");
    assertThatThrownBy(() -> view.sampleIndex(0, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("row: 2 (expected: 0 <= row < batchLength = 2)");
  }
}
