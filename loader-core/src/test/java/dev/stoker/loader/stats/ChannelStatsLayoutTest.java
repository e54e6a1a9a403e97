package dev.stoker.loader.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ChannelStatsLayoutTest {

  private static final int CHANNELS = 3;
  private static final int SPATIAL = 32 * 32;
  private static final double[] BASES = {0.485, 0.456, 100.0};

  /** Same block arithmetic, different memory walk: only a few ulps may differ. */
  private static final double SAME_PATH_REL_TOLERANCE = 1e-14;

  @Test
  void channelsLastOnTransposedDataMatchesChannelsFirst() {
    float[][] data = Data.channelsFirst(11, 50, SPATIAL, BASES, 0.3);
    ChannelStats first = new ChannelStats(CHANNELS);
    ChannelStats last = new ChannelStats(CHANNELS);
    for (float[] sample : data) {
      first.addChannelsFirst(sample, 0, SPATIAL);
      last.addChannelsLast(Data.toChannelsLast(sample, CHANNELS, SPATIAL), 0, SPATIAL);
    }
    assertSame(last, first);
  }

  @Test
  void offsetsSelectOneSampleOutOfABatch() {
    float[][] data = Data.channelsFirst(12, 4, SPATIAL, BASES, 0.3);
    int sampleSize = CHANNELS * SPATIAL;
    float[] batchFirst = new float[data.length * sampleSize];
    float[] batchLast = new float[data.length * sampleSize];
    ChannelStats perSample = new ChannelStats(CHANNELS);
    for (int i = 0; i < data.length; i++) {
      System.arraycopy(data[i], 0, batchFirst, i * sampleSize, sampleSize);
      float[] last = Data.toChannelsLast(data[i], CHANNELS, SPATIAL);
      System.arraycopy(last, 0, batchLast, i * sampleSize, sampleSize);
      perSample.addChannelsFirst(data[i], 0, SPATIAL);
    }

    ChannelStats fromBatchFirst = new ChannelStats(CHANNELS);
    ChannelStats fromBatchLast = new ChannelStats(CHANNELS);
    for (int i = 0; i < data.length; i++) {
      fromBatchFirst.addChannelsFirst(batchFirst, i * sampleSize, SPATIAL);
      fromBatchLast.addChannelsLast(batchLast, i * sampleSize, SPATIAL);
    }
    assertSame(fromBatchFirst, perSample);
    assertSame(fromBatchLast, perSample);
  }

  @Test
  void floatBufferPathMatchesArrayPathAndKeepsPosition() {
    float[][] data = Data.channelsFirst(13, 20, SPATIAL, BASES, 0.3);
    int sampleSize = CHANNELS * SPATIAL;
    int index = 5; // a sample not at the buffer start
    FloatBuffer heap = FloatBuffer.allocate(index + sampleSize);
    FloatBuffer direct =
        ByteBuffer.allocateDirect((index + sampleSize) * Float.BYTES)
            .order(ByteOrder.nativeOrder())
            .asFloatBuffer();
    heap.position(2);
    direct.position(3);

    ChannelStats fromArray = new ChannelStats(CHANNELS);
    ChannelStats fromHeap = new ChannelStats(CHANNELS);
    ChannelStats fromDirect = new ChannelStats(CHANNELS);
    for (float[] sample : data) {
      heap.put(index, sample, 0, sampleSize);
      direct.put(index, sample, 0, sampleSize);
      fromArray.addChannelsFirst(sample, 0, SPATIAL);
      fromHeap.addChannelsFirst(heap, index, SPATIAL);
      fromDirect.addChannelsFirst(direct, index, SPATIAL);
    }

    assertThat(heap.position()).isEqualTo(2);
    assertThat(direct.position()).isEqualTo(3);
    assertSame(fromHeap, fromArray);
    assertSame(fromDirect, fromArray);
  }

  @Test
  void uint8PathScaledBy1Over255MatchesReference() {
    SplittableRandom rnd = new SplittableRandom(14);
    int samples = 40;
    double scale = 1 / 255f;
    byte[][] pixels = new byte[samples][CHANNELS * SPATIAL];
    ChannelStats stats = new ChannelStats(CHANNELS);
    for (int s = 0; s < samples; s++) {
      for (int c = 0; c < CHANNELS; c++) {
        int center = 60 + 60 * c; // different means per channel, clipped to 0..255
        for (int i = c * SPATIAL; i < (c + 1) * SPATIAL; i++) {
          pixels[s][i] = (byte) Math.max(0, Math.min(255, center + rnd.nextInt(-80, 81)));
        }
      }
      stats.addChannelsFirst(pixels[s], 0, SPATIAL, scale);
    }

    for (int c = 0; c < CHANNELS; c++) {
      double[] ref = referenceScaled(pixels, c, scale);
      assertThat(stats.count(c)).isEqualTo((long) samples * SPATIAL);
      assertThat(stats.mean(c)).isCloseTo(ref[0], within(1e-14));
      assertThat(Reference.relativeError(stats.std(c), Math.sqrt(ref[1]))).isLessThan(1e-13);
    }
  }

  /** float64 two-pass over (unsigned byte) * scale: {mean, population variance}. */
  private static double[] referenceScaled(byte[][] pixels, int c, double scale) {
    double sum = 0;
    long n = 0;
    for (byte[] p : pixels) {
      for (int i = c * SPATIAL; i < (c + 1) * SPATIAL; i++) {
        sum += (p[i] & 0xFF) * scale;
        n++;
      }
    }
    double mean = sum / n;
    double sq = 0;
    for (byte[] p : pixels) {
      for (int i = c * SPATIAL; i < (c + 1) * SPATIAL; i++) {
        double d = (p[i] & 0xFF) * scale - mean;
        sq += d * d;
      }
    }
    return new double[] {mean, sq / n};
  }

  private static void assertSame(ChannelStats actual, ChannelStats expected) {
    for (int c = 0; c < CHANNELS; c++) {
      assertThat(actual.count(c)).isEqualTo(expected.count(c));
      assertThat(Reference.relativeError(actual.mean(c), expected.mean(c)))
          .as("channel %d mean", c)
          .isLessThanOrEqualTo(SAME_PATH_REL_TOLERANCE);
      assertThat(Reference.relativeError(actual.std(c), expected.std(c)))
          .as("channel %d std", c)
          .isLessThanOrEqualTo(SAME_PATH_REL_TOLERANCE);
    }
  }
}
