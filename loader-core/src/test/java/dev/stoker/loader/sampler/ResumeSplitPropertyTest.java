package dev.stoker.loader.sampler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * An epoch cut after {@code k} batches on each of {@code W} ranks and resumed on {@code W'} ranks
 * (and cut and resumed once more on {@code W''}): over random cases, every row of the epoch comes
 * exactly once apart from the reported drops (with {@code dropLast}) or at least once with the
 * reported padding as the only repeats (without), every rank gets the same number of batches, and
 * with {@code W' = W} the batches after the cut are the uninterrupted epoch's.
 */
class ResumeSplitPropertyTest {
  /** Cases per run; {@code -Dstoker.resume.cases=N} runs more. */
  static final int CASES = Integer.getInteger("stoker.resume.cases", 5_000);

  /** The batches rank {@code rank} of {@code worldSize} yields from position {@code start}. */
  private static List<int[]> batches(
      int n,
      int start,
      int rank,
      int worldSize,
      int batchSize,
      boolean dropLast,
      boolean shuffle,
      long seed,
      int epoch) {
    BatchSampler sampler =
        new BatchSampler(
            new DistributedSampler(n, start, rank, worldSize, shuffle, seed, dropLast),
            batchSize,
            dropLast);
    EpochBatches plan = sampler.epoch(epoch);
    List<int[]> out = new ArrayList<>();
    for (int b = 0; b < plan.batchCount(); b++) {
      int[] batch = new int[plan.batchLength(b)];
      for (int i = 0; i < batch.length; i++) {
        batch[i] = plan.sampleIndex(b, i);
      }
      out.add(batch);
    }
    return out;
  }

  /** One segment of an epoch: from {@code start}, on {@code worldSize} ranks, up to {@code cut}. */
  private record Segment(
      int start, int worldSize, List<List<int[]>> ranks, int cut, long padded, long dropped) {}

  private static Segment segment(
      int n,
      int start,
      int worldSize,
      int batchSize,
      boolean dropLast,
      boolean shuffle,
      long seed,
      int epoch,
      Random random) {
    List<List<int[]>> ranks = new ArrayList<>();
    for (int r = 0; r < worldSize; r++) {
      ranks.add(batches(n, start, r, worldSize, batchSize, dropLast, shuffle, seed, epoch));
    }
    int count = ranks.get(0).size();
    for (List<int[]> rank : ranks) {
      assertThat(rank).as("every rank's batch count").hasSize(count);
    }
    DistributedSampler any =
        new DistributedSampler(n, start, 0, worldSize, shuffle, seed, dropLast);
    long dropped =
        any.droppedCount()
            + (long) new BatchSampler(any, batchSize, dropLast).droppedSamples() * worldSize;
    return new Segment(
        start, worldSize, ranks, random.nextInt(count + 1), any.paddedCount(), dropped);
  }

  @Test
  void shouldDeliverEveryRowOfTheEpochOnceAcrossCutsAndWorldSizes() {
    Random random = new Random(20261201L);
    int resumedMidway = 0;
    for (int c = 0; c < CASES; c++) {
      int n = random.nextInt(400);
      int batchSize = 1 + random.nextInt(random.nextBoolean() ? 4 : 40);
      boolean dropLast = random.nextBoolean();
      boolean shuffle = random.nextBoolean();
      long seed = random.nextLong();
      int epoch = random.nextInt(5);
      int[] worlds = {1 + random.nextInt(8), 1 + random.nextInt(8), 1 + random.nextInt(8)};
      String label =
          String.format(
              "case %d: n=%d batchSize=%d dropLast=%s shuffle=%s seed=%d " + "worlds=%d,%d,%d",
              c, n, batchSize, dropLast, shuffle, seed, worlds[0], worlds[1], worlds[2]);
      int[] seen = new int[n];
      int start = 0;
      long padded = 0;
      long dropped = 0;
      for (int s = 0; s < worlds.length && start < n; s++) {
        Segment segment =
            segment(n, start, worlds[s], batchSize, dropLast, shuffle, seed, epoch, random);
        boolean last = s == worlds.length - 1;
        int cut = last ? segment.ranks().get(0).size() : segment.cut();
        if (s > 0 && worlds[s] == worlds[s - 1]) {
          // The same world size: the rest of the uninterrupted segment, batch for batch.
          for (int r = 0; r < worlds[s]; r++) {
            List<int[]> whole =
                batches(n, 0, r, worlds[s], batchSize, dropLast, shuffle, seed, epoch);
            int before = start / (batchSize * worlds[s]);
            if (sameWorldBefore(worlds, s)) {
              assertThat(segment.ranks().get(r))
                  .as(label + " rank " + r)
                  .usingElementComparator(ResumeSplitPropertyTest::compare)
                  .containsExactlyElementsOf(whole.subList(before, whole.size()));
            }
          }
        }
        for (List<int[]> rank : segment.ranks()) {
          for (int b = 0; b < cut; b++) {
            int[] batch = rank.get(b);
            if (dropLast) {
              assertThat(batch).as(label + " full batch").hasSize(batchSize);
            }
            for (int index : batch) {
              seen[index]++;
            }
          }
        }
        boolean wholeSegment = cut == segment.ranks().get(0).size();
        if (wholeSegment) {
          padded += segment.padded();
          dropped += segment.dropped();
          start = n;
        } else {
          start += cut * batchSize * worlds[s];
          resumedMidway += s < worlds.length - 1 && cut > 0 ? 1 : 0;
        }
      }
      long missing = 0;
      long repeats = 0;
      for (int count : seen) {
        missing += count == 0 ? 1 : 0;
        repeats += Math.max(0, count - 1);
      }
      if (dropLast) {
        assertThat(repeats).as(label + " rows twice").isZero();
        assertThat(missing)
            .as(label + " rows never delivered = the reported drops")
            .isEqualTo(dropped);
        assertThat(dropped)
            .as(label + " drops < max(W) x batchSize")
            .isLessThan((long) Math.max(worlds[0], Math.max(worlds[1], worlds[2])) * batchSize);
      } else {
        assertThat(missing).as(label + " rows never delivered").isZero();
        assertThat(repeats).as(label + " repeats = the reported padding").isEqualTo(padded);
      }
    }
    assertThat(resumedMidway).as("cases resumed mid-epoch").isGreaterThan(CASES / 4);
  }

  /** Whether every segment before {@code s} ran on {@code worlds[s]} ranks too. */
  private static boolean sameWorldBefore(int[] worlds, int s) {
    for (int i = 0; i < s; i++) {
      if (worlds[i] != worlds[s]) {
        return false;
      }
    }
    return true;
  }

  private static int compare(int[] a, int[] b) {
    return Arrays.compare(a, b);
  }
}
