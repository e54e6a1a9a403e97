package dev.stoker.loader.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The two shuffle measures on orders whose answer is known. */
class ShuffleQualityTest {
  private static final int ROWS = 10_000;
  private static final int CLASSES = 10;

  /** Rows 0..n-1 sorted by label: label = row * classes / n. */
  private static int label(long row) {
    return (int) (row * CLASSES / ROWS);
  }

  /** {@code order} dealt to {@code ranks} ranks in consecutive slices, with its labels. */
  private static ShuffleQuality dealt(long[] order, int ranks, int batchSize) {
    long[][] rows = new long[ranks][];
    int[][] labels = new int[ranks][];
    int per = order.length / ranks;
    for (int r = 0; r < ranks; r++) {
      rows[r] = java.util.Arrays.copyOfRange(order, r * per, (r + 1) * per);
      labels[r] = new int[per];
      for (int i = 0; i < per; i++) {
        labels[r][i] = label(rows[r][i]);
      }
    }
    return ShuffleQuality.of(rows, labels, batchSize);
  }

  private static long[] storageOrder() {
    long[] order = new long[ROWS];
    for (int i = 0; i < ROWS; i++) {
      order[i] = i;
    }
    return order;
  }

  private static void shuffle(long[] order, int from, int to, SplittableRandom random) {
    for (int i = to - 1; i > from; i--) {
      int j = from + random.nextInt(i - from + 1);
      long row = order[i];
      order[i] = order[j];
      order[j] = row;
    }
  }

  @Test
  void shouldGiveZeroBitsAndAlmostOneLabelPerBatchForStorageOrder() {
    ShuffleQuality sorted = dealt(storageOrder(), 2, 50);

    assertThat(sorted.gapEntropyBits()).isZero();
    // a global batch of two 50-row slices of one label each: 0.8 from the even mix of ten
    assertThat(sorted.labelTv()).isCloseTo(0.8, within(1e-9));
    assertThat(sorted.steps()).isEqualTo(100);
  }

  @Test
  void shouldRankWindowedShufflesBetweenStorageOrderAndAPermutation() {
    SplittableRandom random = new SplittableRandom(3);
    double previousBits = 0;
    for (int window : new int[] {10, 100, 1000}) {
      ShuffleQuality windowed = dealt(windowed(window, random), 2, 50);
      // about log2(2 x window) bits: gaps spread over (-window, window)
      assertThat(windowed.gapEntropyBits())
          .as("window " + window)
          .isBetween(Math.log(window) / Math.log(2) - 1, Math.log(2.0 * window) / Math.log(2) + 1)
          .isGreaterThan(previousBits);
      previousBits = windowed.gapEntropyBits();
    }
    // labels come in blocks of 1,000 rows: a window mixes them once it spans several blocks
    double previousTv = 1;
    for (int window : new int[] {1000, 2500, 5000}) {
      ShuffleQuality windowed = dealt(windowed(window, random), 2, 50);
      assertThat(windowed.labelTv()).as("window " + window).isLessThan(previousTv);
      previousTv = windowed.labelTv();
    }
    long[] permuted = storageOrder();
    shuffle(permuted, 0, ROWS, random);
    ShuffleQuality full = dealt(permuted, 2, 50);
    assertThat(full.gapEntropyBits()).isGreaterThan(previousBits).isGreaterThan(12);
    assertThat(full.labelTv()).isLessThan(previousTv).isLessThan(0.25);
    ShuffleQuality reference =
        ShuffleQuality.ofRandomPermutation(
            new long[][] {storageOrder()}, new int[][] {labels(storageOrder())}, 100, 5);
    assertThat(reference.labelTv()).isCloseTo(full.labelTv(), within(0.05));
  }

  /** Storage order shuffled within consecutive windows of {@code window} rows. */
  private static long[] windowed(int window, SplittableRandom random) {
    long[] order = storageOrder();
    for (int from = 0; from < ROWS; from += window) {
      shuffle(order, from, Math.min(ROWS, from + window), random);
    }
    return order;
  }

  private static int[] labels(long[] rows) {
    int[] labels = new int[rows.length];
    for (int i = 0; i < rows.length; i++) {
      labels[i] = label(rows[i]);
    }
    return labels;
  }

  @Test
  void shouldComputeASmallCaseByHand() {
    // rank 0: rows 0, 2, 1, 3 (gaps +2, -1, +2); rank 1: rows 4, 5, 6, 7 (gaps +1 x3)
    // gaps {+2: 2, -1: 1, +1: 3} of 6: entropy = 1.459 bits
    long[][] rows = {{0, 2, 1, 3}, {4, 5, 6, 7}};
    // labels: rank 0 {0, 0, 1, 1}, rank 1 {1, 1, 1, 1}; all rows: 2 of label 0, 6 of label 1
    int[][] labels = {{0, 0, 1, 1}, {1, 1, 1, 1}};
    ShuffleQuality quality = ShuffleQuality.of(rows, labels, 2);

    double p2 = 2 / 6.0;
    double p1 = 1 / 6.0;
    double p3 = 3 / 6.0;
    double bits = -(p2 * Math.log(p2) + p1 * Math.log(p1) + p3 * Math.log(p3)) / Math.log(2);
    assertThat(quality.gapEntropyBits()).isCloseTo(bits, within(1e-12));
    // step 0: {0, 0, 1, 1} -> (0.5, 0.5) against (0.25, 0.75): 0.25; step 1: {1, 1, 1, 1}: 0.25
    assertThat(quality.labelTv()).isCloseTo(0.25, within(1e-12));
    assertThat(quality.steps()).isEqualTo(2);
  }

  @Test
  void shouldRefuseLabelsThatAreNoClassIndexAndArraysThatDoNotMatch() {
    assertThatThrownBy(() -> ShuffleQuality.of(new long[][] {{0, 1}}, new int[][] {{0, -3}}, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("label -3 of row 1 of rank 0");
    assertThatThrownBy(() -> ShuffleQuality.of(new long[][] {{0, 1}}, new int[][] {{0}}, 1))
        .hasMessageContaining("rank 0: 2 rows but 1 labels");
    assertThatThrownBy(() -> ShuffleQuality.of(new long[][] {{0}}, new int[][] {{0}}, 0))
        .hasMessageContaining("batchSize: 0");
    assertThat(ShuffleQuality.of(new long[0][], new int[0][], 4))
        .isEqualTo(new ShuffleQuality(0, 0, 0));
  }
}
