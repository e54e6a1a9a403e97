package dev.stoker.loader.sampler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PermutationsTest {

  @Test
  void shouldContainEveryIndexExactlyOnce() {
    Random random = new Random(11);
    for (int c = 0; c < 300; c++) {
      int n = random.nextInt(300);
      long seed = random.nextLong();
      int epoch = random.nextInt(1000);
      int[] sorted = Permutations.permutation(n, seed, epoch);
      Arrays.sort(sorted);
      assertThat(sorted)
          .as("n=%d seed=%d epoch=%d", n, seed, epoch)
          .isEqualTo(IntStream.range(0, n).toArray());
    }
  }

  @Test
  void shouldNotConfuseSeedAndEpoch() {
    assertThat(Permutations.permutation(100, 1, 0))
        .isNotEqualTo(Permutations.permutation(100, 0, 1));
    assertThat(Permutations.permutation(100, 5, 7))
        .isNotEqualTo(Permutations.permutation(100, 7, 5));
  }

  @Test
  void shouldHandleEmptyAndSingletonRanges() {
    assertThat(Permutations.permutation(0, 42, 3)).isEmpty();
    assertThat(Permutations.permutation(1, 42, 3)).containsExactly(0);
  }

  @Test
  void shouldRejectNegativeSizeAndEpoch() {
    assertThatThrownBy(() -> Permutations.permutation(-1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("n: -1 (expected: >= 0)");
    assertThatThrownBy(() -> Permutations.permutation(3, 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch: -1 (expected: >= 0)");
  }
}
