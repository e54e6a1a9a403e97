package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.state.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A streamed epoch cut after some batches on {@code W} ranks and resumed on {@code W'} (and once
 * more on {@code W''}): over random cases with small shuffle windows, every row of the epoch is
 * streamed exactly once apart from {@code dropLast}'s reported tail (or at least once, the reported
 * padding being the only repeats), every rank streams the same rows, and with {@code W' = W} each
 * rank streams the rest of its uninterrupted stream in its order.
 */
class StreamSplitPropertyTest {
  static final int CASES = Integer.getInteger("stoker.resume.cases", 5_000);

  /** The positions a rank streams, in order. */
  private static List<Long> stream(List<OrderSlice> slices, boolean shuffle, long seed, int epoch) {
    List<Long> positions = new ArrayList<>();
    for (OrderSlice slice : slices) {
      slice.forEachPosition(shuffle, seed, epoch, positions::add);
    }
    return positions;
  }

  @Test
  void shouldStreamEveryRowOfTheEpochOnceAcrossCutsAndWorldSizes() {
    Random random = new Random(1612);
    int resumed = 0;
    int cases = 0;
    while (cases < CASES) {
      long rows = 1 + random.nextInt(300);
      int batchSize = 1 + random.nextInt(random.nextBoolean() ? 3 : 20);
      int windowRows = 1 + random.nextInt(random.nextBoolean() ? 5 : 64);
      boolean dropLast = random.nextBoolean();
      boolean shuffle = random.nextBoolean();
      long seed = random.nextLong();
      int epoch = random.nextInt(4);
      int worldSize = 1 + random.nextInt(6);
      if ((long) worldSize * batchSize > rows) {
        continue;
      }
      cases++;
      int segmentsWanted = 1 + random.nextInt(3);
      String label =
          String.format(
              "case %d: rows=%d batchSize=%d window=%d dropLast=%s " + "shuffle=%s seed=%d",
              cases, rows, batchSize, windowRows, dropLast, shuffle, seed);
      List<Segment> segments = new ArrayList<>(List.of(new Segment(worldSize, 0)));
      int[] seen = new int[(int) rows];
      long padded = 0;
      int maxWorld = worldSize;
      StreamSplit.Plan plan;
      for (int s = 0; ; s++) {
        label += " W" + s + "=" + worldSize;
        plan = StreamSplit.replay(rows, segments, batchSize, dropLast, windowRows);
        List<List<Long>> streams = new ArrayList<>();
        for (List<OrderSlice> rank : plan.ranks()) {
          List<Long> stream = stream(rank, shuffle, seed, epoch);
          assertThat((long) stream.size()).as(label + " rows per rank").isEqualTo(plan.perRank());
          streams.add(stream);
        }
        if (s == 1 && segments.get(0).worldSize() == worldSize) {
          StreamSplit.Plan whole =
              StreamSplit.fresh(rows, worldSize, batchSize, dropLast, windowRows);
          int before = (int) segments.get(0).rows();
          for (int r = 0; r < worldSize; r++) {
            List<Long> all = stream(whole.ranks().get(r), shuffle, seed, epoch);
            assertThat(streams.get(r))
                .as(label + " rank " + r + " after the cut")
                .containsExactlyElementsOf(all.subList(before, all.size()));
          }
        }
        long batches =
            dropLast ? plan.perRank() / batchSize : (plan.perRank() + batchSize - 1) / batchSize;
        boolean last = s == segmentsWanted - 1 || batches == 0;
        long consumed = last ? plan.perRank() : random.nextInt((int) batches) * (long) batchSize;
        if (last) {
          assertThat(plan.padded(rows, shuffle, seed, epoch))
              .as(label + " padding reported")
              .isEqualTo(streams.stream().flatMap(List::stream).filter(p -> p >= rows).count());
        }
        for (List<Long> stream : streams) {
          for (long position : stream.subList(0, (int) consumed)) {
            padded += position >= rows ? 1 : 0;
            seen[(int) (position % rows)]++;
          }
        }
        if (last) {
          break;
        }
        resumed += consumed > 0 ? 1 : 0;
        segments.set(s, new Segment(worldSize, consumed));
        worldSize = 1 + random.nextInt(6);
        maxWorld = Math.max(maxWorld, worldSize);
        segments.add(new Segment(worldSize, 0));
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
            .as(label + " never streamed = the reported tail")
            .isEqualTo(plan.dropped());
        assertThat(missing)
            .as(label + " < max(W) x batchSize")
            .isLessThan((long) maxWorld * batchSize);
      } else {
        assertThat(missing).as(label + " never streamed").isZero();
        assertThat(repeats).as(label + " repeats = the padding").isEqualTo(padded);
      }
    }
    assertThat(resumed).isGreaterThan(CASES / 4);
  }
}
