package dev.stoker.loader.sampler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RandomSamplerTest {
  private static final int CASES = 300;

  @Test
  void shouldYieldEveryIndexExactlyOncePerEpoch() {
    Random random = new Random(1);
    for (int c = 0; c < CASES; c++) {
      int n = random.nextInt(500);
      long seed = random.nextLong();
      int epoch = random.nextInt(100);
      RandomSampler sampler = new RandomSampler(n, seed);
      int[] sorted = sampler.indices(epoch);
      assertThat(sorted).hasSize(sampler.length());
      Arrays.sort(sorted);
      assertThat(sorted)
          .as("n=%d seed=%d epoch=%d", n, seed, epoch)
          .isEqualTo(IntStream.range(0, n).toArray());
    }
  }

  @Test
  void shouldReplayTheSameOrderForTheSameSeedAndEpochOnARetry() {
    Random random = new Random(2);
    for (int c = 0; c < CASES; c++) {
      int n = random.nextInt(500);
      long seed = random.nextLong();
      int epoch = random.nextInt(100);
      int[] first = new RandomSampler(n, seed).indices(epoch);
      RandomSampler retry = new RandomSampler(n, seed);
      retry.indices(epoch + 1); // other epochs in between must not matter
      assertThat(retry.indices(epoch)).as("n=%d seed=%d epoch=%d", n, seed, epoch).isEqualTo(first);
    }
  }

  @Test
  void shouldChangeOrderBetweenEpochs() {
    Random random = new Random(3);
    for (int c = 0; c < CASES; c++) {
      int n = 10 + random.nextInt(500);
      long seed = random.nextLong();
      int epoch = random.nextInt(100);
      RandomSampler sampler = new RandomSampler(n, seed);
      assertThat(sampler.indices(epoch + 1 + random.nextInt(10)))
          .as("n=%d seed=%d epoch=%d", n, seed, epoch)
          .isNotEqualTo(sampler.indices(epoch));
    }
  }

  @Test
  void shouldChangeOrderBetweenSeeds() {
    Random random = new Random(4);
    for (int c = 0; c < CASES; c++) {
      int n = 10 + random.nextInt(500);
      long seed = random.nextLong();
      long otherSeed = seed + 1 + random.nextInt(10);
      int epoch = random.nextInt(100);
      assertThat(new RandomSampler(n, otherSeed).indices(epoch))
          .as("n=%d seed=%d epoch=%d", n, seed, epoch)
          .isNotEqualTo(new RandomSampler(n, seed).indices(epoch));
    }
  }

  @Test
  void shouldRejectBadArgumentsWithExactMessages() {
    assertThatThrownBy(() -> new RandomSampler(-1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("datasetSize: -1 (expected: >= 0)");
    assertThatThrownBy(() -> new RandomSampler(3, 0).indices(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch: -1 (expected: >= 0)");
  }
}
