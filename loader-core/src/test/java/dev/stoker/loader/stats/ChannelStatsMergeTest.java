package dev.stoker.loader.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChannelStatsMergeTest {

  private static final int SPATIAL = 512;
  private static final double[] BASES = {10_000, 20_000, 0.45};

  /** Observed <= 1e-13 relative on std and <= 1e-15 on the mean versus one accumulator. */
  private static final double STD_REL_TOLERANCE = 1e-11;

  private static final double MEAN_REL_TOLERANCE = 1e-14;

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void randomShardsMergedInRandomOrderMatchOneAccumulator(long seed) {
    Random rnd = new Random(seed);
    float[][] data = Data.channelsFirst(seed, 200, SPATIAL, BASES, 0.5);
    ChannelStats whole = new ChannelStats(BASES.length);
    int shardCount = 2 + rnd.nextInt(10);
    List<ChannelStats> shards = new ArrayList<>();
    for (int i = 0; i < shardCount; i++) {
      shards.add(new ChannelStats(BASES.length)); // some may stay empty
    }
    for (float[] sample : data) {
      whole.addChannelsFirst(sample, 0, SPATIAL);
      shards.get(rnd.nextInt(shardCount)).addChannelsFirst(sample, 0, SPATIAL);
    }

    Collections.shuffle(shards, rnd);
    ChannelStats merged = new ChannelStats(BASES.length);
    for (ChannelStats shard : shards) {
      merged.merge(shard);
    }

    for (int c = 0; c < BASES.length; c++) {
      assertThat(merged.count(c)).isEqualTo(whole.count(c));
      assertThat(Reference.relativeError(merged.mean(c), whole.mean(c)))
          .as("channel %d mean", c)
          .isLessThan(MEAN_REL_TOLERANCE);
      assertThat(Reference.relativeError(merged.std(c), whole.std(c)))
          .as("channel %d std", c)
          .isLessThan(STD_REL_TOLERANCE);
    }
  }

  @Test
  void mergingEmptyIsIdentityInBothDirections() {
    float[][] data = Data.channelsFirst(7, 5, 64, BASES, 0.5);
    ChannelStats stats = new ChannelStats(BASES.length);
    for (float[] sample : data) {
      stats.addChannelsFirst(sample, 0, 64);
    }
    byte[] before = stats.toBytes();

    stats.merge(new ChannelStats(BASES.length));
    assertThat(stats.toBytes()).isEqualTo(before);

    ChannelStats empty = new ChannelStats(BASES.length);
    empty.merge(stats);
    assertThat(empty.toBytes()).isEqualTo(before);
  }

  @Test
  void mergeLeavesOtherUnchanged() {
    ChannelStats a = new ChannelStats(1);
    a.addChannelsFirst(new float[] {1, 2, 3}, 0, 3);
    ChannelStats b = new ChannelStats(1);
    b.addChannelsFirst(new float[] {7, 9}, 0, 2);
    byte[] bBefore = b.toBytes();

    a.merge(b);

    assertThat(b.toBytes()).isEqualTo(bBefore);
    assertThat(a.count(0)).isEqualTo(5);
    assertThat(a.mean(0)).isEqualTo(22 / 5.0);
  }

  @Test
  void mergingWithItselfDoublesCountAndKeepsMoments() {
    ChannelStats stats = new ChannelStats(1);
    stats.addChannelsFirst(new float[] {1, 2, 3, 4}, 0, 4);

    stats.merge(stats);

    assertThat(stats.count(0)).isEqualTo(8);
    assertThat(stats.mean(0)).isEqualTo(2.5);
    assertThat(stats.variance(0)).isEqualTo(1.25);
  }
}
