package dev.stoker.loader.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

class ChannelStatsArgumentsTest {

  @Test
  void channelsMustBePositive() {
    assertThatThrownBy(() -> new ChannelStats(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("channels: 0 (expected: > 0)");
    assertThatThrownBy(() -> new ChannelStats(-2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("channels: -2 (expected: > 0)");
  }

  @Test
  void spatialAndOffsetAreChecked() {
    ChannelStats stats = new ChannelStats(3);
    float[] values = new float[12];

    assertThatThrownBy(() -> stats.addChannelsFirst(values, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("spatial: 0 (expected: > 0)");
    assertThatThrownBy(() -> stats.addChannelsLast(values, -1, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offset: -1 (expected: >= 0)");
  }

  @Test
  void tooFewValuesAreRejectedAndStateIsUnchanged() {
    ChannelStats stats = new ChannelStats(3);
    float[] values = new float[12];

    assertThatThrownBy(() -> stats.addChannelsFirst(values, 2, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("values: 10 values from offset 2, need 12 (3 channels * 4 spatial)");
    assertThatThrownBy(() -> stats.addChannelsLast(values, 0, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("values: 12 values from offset 0, need 15 (3 channels * 5 spatial)");
    assertThatThrownBy(() -> stats.addChannelsFirst(new byte[12], 20, 4, 1.0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pixels: 0 values from offset 20, need 12 (3 channels * 4 spatial)");
    assertThat(stats.count(0)).isZero();
  }

  @Test
  void floatBufferIsBoundedByItsLimit() {
    ChannelStats stats = new ChannelStats(2);
    FloatBuffer buffer = FloatBuffer.allocate(16).limit(10);

    assertThatThrownBy(() -> stats.addChannelsFirst(buffer, 4, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("values: 6 values from index 4, need 8 (2 channels * 4 spatial)");
    assertThatThrownBy(() -> stats.addChannelsFirst(buffer, -1, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("index: -1 (expected: >= 0)");
  }

  @Test
  void scaleMustBeFiniteAndPositive() {
    ChannelStats stats = new ChannelStats(1);
    byte[] pixels = new byte[4];

    assertThatThrownBy(() -> stats.addChannelsFirst(pixels, 0, 4, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("scale: 0.0 (expected: finite and > 0)");
    assertThatThrownBy(() -> stats.addChannelsFirst(pixels, 0, 4, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("scale: NaN (expected: finite and > 0)");
  }

  @Test
  void nullInputsAreRejected() {
    ChannelStats stats = new ChannelStats(1);

    assertThatThrownBy(() -> stats.addChannelsFirst((float[]) null, 0, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("values");
    assertThatThrownBy(() -> stats.addChannelsFirst((FloatBuffer) null, 0, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("values");
    assertThatThrownBy(() -> stats.addChannelsFirst(null, 0, 1, 1.0))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("pixels");
    assertThatThrownBy(() -> stats.merge(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("other");
  }

  @Test
  void mergeRejectsDifferentChannelCountsNamingBoth() {
    ChannelStats three = new ChannelStats(3);

    assertThatThrownBy(() -> three.merge(new ChannelStats(4)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot merge ChannelStats with 4 channels into one with 3 channels");
  }

  @Test
  void queriesOnEmptyChannelsFail() {
    ChannelStats stats = new ChannelStats(2);

    assertThat(stats.count(0)).isZero();
    assertThatThrownBy(() -> stats.mean(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("channel 0: no values added");
    assertThatThrownBy(() -> stats.variance(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("channel 1: no values added");
    assertThatThrownBy(() -> stats.std(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("channel 1: no values added");
    assertThatThrownBy(() -> stats.sampleVariance(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("channel 0: no values added");
    assertThatThrownBy(stats::means)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("channel 0: no values added");
    assertThatThrownBy(stats::stds)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("channel 0: no values added");
  }

  @Test
  void sampleVarianceNeedsTwoValues() {
    ChannelStats stats = new ChannelStats(1);
    stats.addChannelsFirst(new float[] {5}, 0, 1);

    assertThat(stats.variance(0)).isZero();
    assertThatThrownBy(() -> stats.sampleVariance(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("channel 0: sample variance needs at least 2 values, got 1");
  }

  @Test
  void channelIndexOutOfRangeIsRejected() {
    ChannelStats stats = new ChannelStats(2);

    assertThatThrownBy(() -> stats.count(2)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> stats.mean(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
