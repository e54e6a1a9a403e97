package dev.stoker.loader.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ChannelStatsBytesTest {

  private static ChannelStats sample() {
    ChannelStats stats = new ChannelStats(3);
    for (float[] s : Data.channelsFirst(3, 10, 16, new double[] {10_000, 0.5, -3}, 0.5)) {
      stats.addChannelsFirst(s, 0, 16);
    }
    return stats;
  }

  @Test
  void roundTripPreservesEveryBitAndMergesLikeTheOriginal() {
    ChannelStats original = sample();
    byte[] bytes = original.toBytes();

    ChannelStats copy = ChannelStats.fromBytes(bytes);

    assertThat(bytes).hasSize(20 + 16 * 3);
    assertThat(copy.channels()).isEqualTo(3);
    for (int c = 0; c < 3; c++) {
      assertThat(copy.count(c)).isEqualTo(original.count(c));
      assertThat(copy.mean(c)).isEqualTo(original.mean(c));
      assertThat(copy.variance(c)).isEqualTo(original.variance(c));
    }
    ChannelStats viaCopy = sample();
    viaCopy.merge(copy);
    ChannelStats viaOriginal = sample();
    viaOriginal.merge(original);
    assertThat(viaCopy.toBytes()).isEqualTo(viaOriginal.toBytes());
  }

  @Test
  void emptyRoundTripStaysEmpty() {
    ChannelStats copy = ChannelStats.fromBytes(new ChannelStats(2).toBytes());

    assertThat(copy.channels()).isEqualTo(2);
    assertThat(copy.count(1)).isZero();
  }

  @Test
  void truncatedOrPaddedBytesAreRejectedNamingTheLength() {
    byte[] bytes = sample().toBytes(); // 68 bytes

    assertThatThrownBy(() -> ChannelStats.fromBytes(Arrays.copyOf(bytes, 67)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 67): expected 68 bytes for 3 channels");
    assertThatThrownBy(() -> ChannelStats.fromBytes(Arrays.copyOf(bytes, 69)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 69): expected 68 bytes for 3 channels");
    assertThatThrownBy(() -> ChannelStats.fromBytes(new byte[5]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 5): shorter than the 20-byte header");
  }

  @Test
  void wrongMagicVersionOrContentsAreRejected() {
    byte[] wrongVersion = sample().toBytes();
    ByteBuffer.wrap(wrongVersion).putInt(4, 2);
    assertThatThrownBy(() -> ChannelStats.fromBytes(wrongVersion))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 68): unsupported version 2 (expected: 1)");

    byte[] wrongMagic = new byte[68];
    assertThatThrownBy(() -> ChannelStats.fromBytes(wrongMagic))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 68): bad magic 0x0 (expected: 0x53544353)");

    byte[] zeroChannels = sample().toBytes();
    ByteBuffer.wrap(zeroChannels).putInt(8, 0);
    assertThatThrownBy(() -> ChannelStats.fromBytes(zeroChannels))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 68): channels 0 (expected: > 0)");

    byte[] negativeCount = sample().toBytes();
    ByteBuffer.wrap(negativeCount).putLong(12, -1);
    assertThatThrownBy(() -> ChannelStats.fromBytes(negativeCount))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 68): count -1 (expected: >= 0)");

    byte[] negativeM2 = sample().toBytes();
    ByteBuffer.wrap(negativeM2).putDouble(20 + 16 + 8, -0.5); // channel 1's M2
    assertThatThrownBy(() -> ChannelStats.fromBytes(negativeM2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid ChannelStats bytes (length 68): channel 1: M2 -0.5 (expected: >= 0)");
  }
}
