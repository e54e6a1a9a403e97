package dev.stoker.loader.sampler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DistributedSamplerTest {
  private static final int CASES = 400;

  /** One random configuration; {@code shards[r]} is rank r's epoch order. */
  private record Case(
      int n, int worldSize, boolean shuffle, long seed, boolean dropLast, int epoch) {
    static Case draw(Random random) {
      return new Case(
          random.nextInt(120),
          1 + random.nextInt(16),
          random.nextBoolean(),
          random.nextLong(),
          random.nextBoolean(),
          random.nextInt(50));
    }

    DistributedSampler sampler(int rank) {
      return new DistributedSampler(n, rank, worldSize, shuffle, seed, dropLast);
    }

    int[][] shards() {
      int[][] shards = new int[worldSize][];
      for (int r = 0; r < worldSize; r++) {
        shards[r] = sampler(r).indices(epoch);
      }
      return shards;
    }

    int[] occurrences() {
      int[] counts = new int[n];
      for (int[] shard : shards()) {
        for (int index : shard) {
          counts[index]++;
        }
      }
      return counts;
    }
  }

  /** PyTorch's DistributedSampler.__iter__, transcribed list-for-list. */
  private static List<Integer> reference(int[] global, int rank, int worldSize, boolean dropLast) {
    int n = global.length;
    int numSamples =
        dropLast && n % worldSize != 0
            ? (int) Math.ceil((double) (n - worldSize) / worldSize)
            : (int) Math.ceil((double) n / worldSize);
    int totalSize = numSamples * worldSize;
    List<Integer> indices = new ArrayList<>();
    for (int i : global) {
      indices.add(i);
    }
    if (!dropLast) {
      int paddingSize = totalSize - indices.size();
      if (paddingSize <= indices.size()) {
        indices.addAll(new ArrayList<>(indices.subList(0, paddingSize)));
      } else {
        List<Integer> repeated = new ArrayList<>();
        for (int k = 0; k < Math.ceil((double) paddingSize / indices.size()); k++) {
          repeated.addAll(indices);
        }
        indices.addAll(repeated.subList(0, paddingSize));
      }
    } else {
      indices = indices.subList(0, totalSize);
    }
    List<Integer> shard = new ArrayList<>();
    for (int i = rank; i < totalSize; i += worldSize) {
      shard.add(indices.get(i));
    }
    return shard;
  }

  @Test
  void shouldMatchPyTorchOnTenSamplesOverThreeRanks() {
    assertThat(new DistributedSampler(10, 0, 3, false, 0, false).indices(0))
        .containsExactly(0, 3, 6, 9);
    assertThat(new DistributedSampler(10, 1, 3, false, 0, false).indices(0))
        .containsExactly(1, 4, 7, 0);
    assertThat(new DistributedSampler(10, 2, 3, false, 0, false).indices(0))
        .containsExactly(2, 5, 8, 1);
    assertThat(new DistributedSampler(10, 0, 3, false, 0, true).indices(0))
        .containsExactly(0, 3, 6);
    assertThat(new DistributedSampler(10, 1, 3, false, 0, true).indices(0))
        .containsExactly(1, 4, 7);
    assertThat(new DistributedSampler(10, 2, 3, false, 0, true).indices(0))
        .containsExactly(2, 5, 8);
    assertThat(new DistributedSampler(10, 0, 3, false, 0, false).paddedCount()).isEqualTo(2);
    assertThat(new DistributedSampler(10, 0, 3, false, 0, true).droppedCount()).isEqualTo(1);
  }

  @Test
  void shouldWrapRepeatedlyWhenRanksOutnumberSamples() {
    int[][] expected = {{0}, {1}, {0}, {1}, {0}};
    for (int r = 0; r < 5; r++) {
      DistributedSampler sampler = new DistributedSampler(2, r, 5, false, 0, false);
      assertThat(sampler.indices(0)).containsExactly(expected[r]);
      assertThat(sampler.paddedCount()).isEqualTo(3);
      assertThat(sampler.droppedCount()).isZero();
    }
  }

  @Test
  void shouldYieldNothingWhenDroppingAndRanksOutnumberSamples() {
    DistributedSampler sampler = new DistributedSampler(2, 4, 5, true, 7, true);
    assertThat(sampler.length()).isZero();
    assertThat(sampler.indices(3)).isEmpty();
    assertThat(sampler.droppedCount()).isEqualTo(2);
    assertThat(sampler.paddedCount()).isZero();
  }

  @Test
  void shouldYieldNothingForAnEmptyDataset() {
    for (boolean dropLast : new boolean[] {false, true}) {
      DistributedSampler sampler = new DistributedSampler(0, 1, 3, true, 7, dropLast);
      assertThat(sampler.length()).isZero();
      assertThat(sampler.indices(0)).isEmpty();
      assertThat(sampler.paddedCount()).isZero();
      assertThat(sampler.droppedCount()).isZero();
    }
  }

  @Test
  void shouldMatchTheReferenceImplementationOnRandomConfigurations() {
    Random random = new Random(5);
    for (int c = 0; c < CASES; c++) {
      Case k = Case.draw(random);
      int[] global =
          k.shuffle
              ? Permutations.permutation(k.n, k.seed, k.epoch)
              : IntStream.range(0, k.n).toArray();
      for (int r = 0; r < k.worldSize; r++) {
        int[] expected =
            reference(global, r, k.worldSize, k.dropLast).stream()
                .mapToInt(Integer::intValue)
                .toArray();
        assertThat(k.sampler(r).indices(k.epoch)).as("%s rank=%d", k, r).isEqualTo(expected);
      }
    }
  }

  @Test
  void shouldGiveEveryRankTheSameLength() {
    Random random = new Random(6);
    for (int c = 0; c < CASES; c++) {
      Case k = Case.draw(random);
      int expected = k.dropLast ? k.n / k.worldSize : (k.n + k.worldSize - 1) / k.worldSize;
      for (int r = 0; r < k.worldSize; r++) {
        DistributedSampler sampler = k.sampler(r);
        assertThat(sampler.length()).as("%s rank=%d", k, r).isEqualTo(expected);
        assertThat(sampler.indices(k.epoch)).as("%s rank=%d", k, r).hasSize(expected);
      }
    }
  }

  @Test
  void shouldCoverEachIndexAtMostOnceAndDropOnlyTheRemainderWithDropLast() {
    Random random = new Random(7);
    for (int c = 0; c < CASES; c++) {
      Case k = Case.draw(random);
      if (!k.dropLast) {
        continue;
      }
      int[] counts = k.occurrences();
      int total = k.n / k.worldSize * k.worldSize;
      assertThat(IntStream.of(counts).max().orElse(0)).as("%s", k).isLessThanOrEqualTo(1);
      assertThat(IntStream.of(counts).sum()).as("%s", k).isEqualTo(total);
      assertThat(k.sampler(0).droppedCount()).as("%s", k).isEqualTo(k.n - total);
      assertThat(k.sampler(0).paddedCount()).as("%s", k).isZero();
    }
  }

  @Test
  void shouldCoverEveryIndexWithDuplicatesEqualToPaddedCountWithoutDropLast() {
    Random random = new Random(8);
    for (int c = 0; c < CASES; c++) {
      Case k = Case.draw(random);
      if (k.dropLast) {
        continue;
      }
      int[] counts = k.occurrences();
      int duplicates = IntStream.of(counts).map(count -> count - 1).sum();
      assertThat(IntStream.of(counts).min().orElse(1)).as("%s", k).isGreaterThanOrEqualTo(1);
      assertThat(duplicates).as("%s", k).isEqualTo(k.sampler(0).paddedCount());
      assertThat(k.sampler(0).paddedCount()).as("%s", k).isLessThan(k.worldSize);
      assertThat(k.sampler(0).droppedCount()).as("%s", k).isZero();
    }
  }

  @Test
  void shouldReplayTheSameShardsOnARetry() {
    Random random = new Random(9);
    for (int c = 0; c < CASES; c++) {
      Case k = Case.draw(random);
      assertThat(k.shards()).as("%s", k).isDeepEqualTo(k.shards());
    }
  }

  @Test
  void shouldShuffleTheSameWayOnEveryRank() {
    int[] global = Permutations.permutation(12, 3, 2);
    for (int r = 0; r < 4; r++) {
      int[] shard = new DistributedSampler(12, r, 4, true, 3, false).indices(2);
      assertThat(shard).containsExactly(global[r], global[r + 4], global[r + 8]);
    }
  }

  @Test
  void shouldExposeRankAndWorldSize() {
    DistributedSampler sampler = new DistributedSampler(10, 2, 4, false, 0, false);
    assertThat(sampler.rank()).isEqualTo(2);
    assertThat(sampler.worldSize()).isEqualTo(4);
  }

  @Test
  void shouldRejectBadArgumentsWithExactMessages() {
    assertThatThrownBy(() -> new DistributedSampler(-1, 0, 1, false, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("datasetSize: -1 (expected: >= 0)");
    assertThatThrownBy(() -> new DistributedSampler(10, 0, 0, false, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("worldSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> new DistributedSampler(10, 3, 2, false, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rank: 3 (expected: 0 <= rank < worldSize = 2)");
    assertThatThrownBy(() -> new DistributedSampler(10, -1, 2, false, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rank: -1 (expected: 0 <= rank < worldSize = 2)");
    assertThatThrownBy(() -> new DistributedSampler(10, 0, 2, true, 0, false).indices(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch: -1 (expected: >= 0)");
  }
}
