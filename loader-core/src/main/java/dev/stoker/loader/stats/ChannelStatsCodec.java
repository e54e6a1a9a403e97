package dev.stoker.loader.stats;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Byte form of {@link ChannelStats}, big-endian: magic {@code "STCS"}, int version, int channels,
 * long count, then per channel double mean and double M2. M2 (not the variance) travels so that a
 * decoded copy merges exactly like the original.
 */
final class ChannelStatsCodec {

  static final int MAGIC = 0x53544353; // "STCS"
  static final int VERSION = 1;
  static final int HEADER_BYTES = 4 + 4 + 4 + 8;
  static final int BYTES_PER_CHANNEL = 8 + 8;

  private ChannelStatsCodec() {}

  static byte[] encode(long count, double[] mean, double[] m2) {
    int channels = mean.length;
    ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(encodedLength(channels)));
    buf.putInt(MAGIC).putInt(VERSION).putInt(channels).putLong(count);
    for (int c = 0; c < channels; c++) {
      buf.putDouble(mean[c]).putDouble(m2[c]);
    }
    return buf.array();
  }

  static ChannelStats decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    int length = bytes.length;
    if (length < HEADER_BYTES) {
      throw invalid(length, "shorter than the " + HEADER_BYTES + "-byte header");
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    int magic = buf.getInt();
    if (magic != MAGIC) {
      throw invalid(
          length,
          "bad magic 0x"
              + Integer.toHexString(magic)
              + " (expected: 0x"
              + Integer.toHexString(MAGIC)
              + ")");
    }
    int version = buf.getInt();
    if (version != VERSION) {
      throw invalid(length, "unsupported version " + version + " (expected: " + VERSION + ")");
    }
    int channels = buf.getInt();
    if (channels <= 0) {
      throw invalid(length, "channels " + channels + " (expected: > 0)");
    }
    long expected = encodedLength(channels);
    if (length != expected) {
      throw invalid(length, "expected " + expected + " bytes for " + channels + " channels");
    }
    long count = buf.getLong();
    if (count < 0) {
      throw invalid(length, "count " + count + " (expected: >= 0)");
    }
    double[] mean = new double[channels];
    double[] m2 = new double[channels];
    for (int c = 0; c < channels; c++) {
      mean[c] = buf.getDouble();
      m2[c] = buf.getDouble();
      if (m2[c] < 0) { // NaN passes: it is what NaN inputs produce
        throw invalid(length, "channel " + c + ": M2 " + m2[c] + " (expected: >= 0)");
      }
    }
    return ChannelStats.restore(count, mean, m2);
  }

  static long encodedLength(int channels) {
    return HEADER_BYTES + (long) BYTES_PER_CHANNEL * channels;
  }

  private static IllegalArgumentException invalid(int length, String why) {
    return new IllegalArgumentException(
        "invalid ChannelStats bytes (length " + length + "): " + why);
  }
}
