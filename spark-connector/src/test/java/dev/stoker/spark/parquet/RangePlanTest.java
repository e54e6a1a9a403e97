package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Column chunks coalesced into requests: every byte once, nothing past the limits. */
class RangePlanTest {
  private static final int MIB = 1 << 20;

  @Test
  void shouldReadNearChunksTogetherAndFarOnesApart() {
    List<List<FileRange>> groups =
        List.of(
            List.of(
                new FileRange(4, 1000), new FileRange(1100, 5000), new FileRange(90_000, 91_000)));
    RangePlan plan = RangePlan.of(groups, 1000, 8 * MIB);
    assertThat(plan.requests())
        .extracting(RangePlan.Request::range)
        .containsExactly(new FileRange(4, 5000), new FileRange(90_000, 91_000));
    assertThat(plan.requests().get(0).chunks()).containsExactly(0, 1);
  }

  @Test
  void shouldCutALongChunkAndOrderRequestsByHowFarIntoTheirChunkTheyStart() {
    // two columns of 20 MiB and a small one: each column's first piece comes before any second
    List<List<FileRange>> groups =
        List.of(
            List.of(
                new FileRange(0, 20L * MIB),
                new FileRange(20L * MIB, 40L * MIB),
                new FileRange(40L * MIB, 40L * MIB + 100)));
    RangePlan plan = RangePlan.of(groups, 0, 8 * MIB);
    List<FileRange> ranges = new ArrayList<>();
    plan.requests().forEach(r -> ranges.add(r.range()));
    assertThat(ranges)
        .containsExactly(
            new FileRange(0, 8L * MIB),
            new FileRange(20L * MIB, 28L * MIB),
            new FileRange(40L * MIB, 40L * MIB + 100),
            new FileRange(8L * MIB, 16L * MIB),
            new FileRange(28L * MIB, 36L * MIB),
            new FileRange(16L * MIB, 20L * MIB),
            new FileRange(36L * MIB, 40L * MIB));
  }

  @Test
  void shouldCoverEveryChunkByteOnceWithinTheLimitsForAnyLayout() {
    Random random = new Random(11);
    for (int trial = 0; trial < 500; trial++) {
      int requestBytes = 1 + random.nextInt(5000);
      long gap = random.nextInt(3) == 0 ? 0 : random.nextInt(3000);
      List<List<FileRange>> groups = new ArrayList<>();
      long at = random.nextInt(10);
      for (int g = 0; g < 1 + random.nextInt(4); g++) {
        List<FileRange> chunks = new ArrayList<>();
        for (int c = 0; c < 1 + random.nextInt(5); c++) {
          at += random.nextInt(2) == 0 ? 0 : random.nextInt(4000);
          long length = random.nextInt(6) == 0 ? 0 : random.nextInt(20_000);
          chunks.add(new FileRange(at, at + length));
          at += length;
        }
        // columns are not always written in the order they are read
        Collections.shuffle(chunks, random);
        groups.add(chunks);
      }
      RangePlan plan = RangePlan.of(groups, gap, requestBytes);
      int[] covered = new int[(int) at];
      for (RangePlan.Request request : plan.requests()) {
        FileRange range = request.range();
        assertThat(range.length()).isBetween(1L, (long) requestBytes);
        for (long b = range.start(); b < range.end(); b++) {
          covered[(int) b]++;
        }
        for (int c : request.chunks()) {
          assertThat(plan.group(c)).isEqualTo(request.group());
        }
      }
      assertThat(Arrays.stream(covered).max().orElse(0))
          .as("no byte asked for twice")
          .isLessThanOrEqualTo(1);
      for (int c = 0; c < plan.chunkCount(); c++) {
        FileRange chunk = plan.chunk(c);
        int index = c;
        for (long b = chunk.start(); b < chunk.end(); b++) {
          assertThat(covered[(int) b]).as("byte %d of chunk %s, trial %d", b, chunk, trial).isOne();
        }
        boolean listed = false;
        for (RangePlan.Request request : plan.requests()) {
          boolean overlaps =
              request.range().start() < chunk.end() && chunk.start() < request.range().end();
          boolean named = Arrays.stream(request.chunks()).anyMatch(x -> x == index);
          if (overlaps && chunk.length() > 0) {
            assertThat(named).as("a request over chunk %d names it", c).isTrue();
          }
          listed |= named;
        }
        assertThat(listed || chunk.length() == 0).isTrue();
      }
      // requests come group after group
      for (int r = 1; r < plan.requests().size(); r++) {
        assertThat(plan.requests().get(r).group())
            .isGreaterThanOrEqualTo(plan.requests().get(r - 1).group());
      }
    }
  }
}
