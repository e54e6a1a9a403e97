package dev.stoker.loader.stats;

import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Running per-channel count, mean and sum of squared deviations (M2), in float64; mergeable (Chan
 * et al. parallel update). Not thread-safe; one per worker, merge at the end.
 *
 * <p>Every add call contributes one block of {@code spatial} values to each channel. The block's
 * mean and M2 are computed exactly as possible in double (two passes over the block, which is in
 * memory), then folded into the running moments with Chan's pairwise formula. This never forms
 * {@code sum(x^2) - sum(x)^2/n}, which cancels catastrophically when the mean is large compared to
 * the spread (e.g. raw pixel values, or a constant offset plus noise).
 *
 * <p>Every call adds the same number of values to every channel, so all channels share one count.
 * Non-finite inputs are not rejected; they propagate into the affected channel's results.
 */
public final class ChannelStats {

  private final int channels;
  private long count;
  private final double[] mean;
  private final double[] m2;

  /**
   * Per-call scratch: the current block's mean and M2 per channel, filled before any state moves.
   */
  private final double[] blockMean;

  private final double[] blockM2;
  private final double[] blockDev;

  public ChannelStats(int channels) {
    if (channels <= 0) {
      throw new IllegalArgumentException("channels: " + channels + " (expected: > 0)");
    }
    this.channels = channels;
    this.mean = new double[channels];
    this.m2 = new double[channels];
    this.blockMean = new double[channels];
    this.blockM2 = new double[channels];
    this.blockDev = new double[channels];
  }

  /** Rebuilds decoded state; arrays are copied. Used by {@link ChannelStatsCodec}. */
  static ChannelStats restore(long count, double[] mean, double[] m2) {
    ChannelStats s = new ChannelStats(mean.length);
    s.count = count;
    System.arraycopy(mean, 0, s.mean, 0, mean.length);
    System.arraycopy(m2, 0, s.m2, 0, m2.length);
    return s;
  }

  public int channels() {
    return channels;
  }

  /**
   * Adds one sample laid out channel-first {@code [C, spatial...]}: channel {@code c} occupies
   * {@code [offset + c*spatial, offset + (c+1)*spatial)}. The array may extend past the sample
   * (e.g. a batch), but must hold at least {@code channels * spatial} values from {@code offset}.
   */
  public void addChannelsFirst(float[] values, int offset, int spatial) {
    Objects.requireNonNull(values, "values");
    checkBlock("values", values.length, "offset", offset, spatial);
    for (int c = 0; c < channels; c++) {
      int from = offset + c * spatial;
      int to = from + spatial;
      double sum = 0;
      for (int i = from; i < to; i++) {
        sum += values[i];
      }
      double m = sum / spatial;
      double dev = 0;
      double sq = 0;
      for (int i = from; i < to; i++) {
        double d = values[i] - m;
        dev += d;
        sq += d * d;
      }
      setBlock(c, m, sq, dev, spatial);
    }
    absorbBlock(spatial);
  }

  /**
   * Same as {@link #addChannelsFirst(float[], int, int)} for a buffer, starting at absolute {@code
   * index} and bounded by its limit. Uses absolute reads; the position does not move.
   */
  public void addChannelsFirst(FloatBuffer values, int index, int spatial) {
    Objects.requireNonNull(values, "values");
    checkBlock("values", values.limit(), "index", index, spatial);
    for (int c = 0; c < channels; c++) {
      int from = index + c * spatial;
      int to = from + spatial;
      double sum = 0;
      for (int i = from; i < to; i++) {
        sum += values.get(i);
      }
      double m = sum / spatial;
      double dev = 0;
      double sq = 0;
      for (int i = from; i < to; i++) {
        double d = values.get(i) - m;
        dev += d;
        sq += d * d;
      }
      setBlock(c, m, sq, dev, spatial);
    }
    absorbBlock(spatial);
  }

  /**
   * Adds one sample laid out channel-last {@code [spatial..., C]} (interleaved, e.g. HWC): the
   * value of channel {@code c} at spatial position {@code s} is at {@code offset + s*channels + c}.
   */
  public void addChannelsLast(float[] values, int offset, int spatial) {
    Objects.requireNonNull(values, "values");
    checkBlock("values", values.length, "offset", offset, spatial);
    int end = offset + channels * spatial;
    // Walk memory in order; accumulate all channels side by side in the scratch arrays.
    Arrays.fill(blockMean, 0);
    for (int i = offset; i < end; i += channels) {
      for (int c = 0; c < channels; c++) {
        blockMean[c] += values[i + c];
      }
    }
    for (int c = 0; c < channels; c++) {
      blockMean[c] /= spatial;
    }
    double[] dev = blockDev;
    Arrays.fill(dev, 0);
    Arrays.fill(blockM2, 0);
    for (int i = offset; i < end; i += channels) {
      for (int c = 0; c < channels; c++) {
        double d = values[i + c] - blockMean[c];
        dev[c] += d;
        blockM2[c] += d * d;
      }
    }
    for (int c = 0; c < channels; c++) {
      setBlock(c, blockMean[c], blockM2[c], dev[c], spatial);
    }
    absorbBlock(spatial);
  }

  /**
   * Adds one sample of uint8 pixels (bytes read as unsigned 0..255), channel-first, each value
   * multiplied by {@code scale} (e.g. {@code 1/255f}) before accumulation. The block is summed in
   * integers and scaled afterwards ({@code mean*scale}, {@code M2*scale^2}), which is the same
   * quantity with less rounding.
   */
  public void addChannelsFirst(byte[] pixels, int offset, int spatial, double scale) {
    Objects.requireNonNull(pixels, "pixels");
    if (!(Double.isFinite(scale) && scale > 0)) {
      throw new IllegalArgumentException("scale: " + scale + " (expected: finite and > 0)");
    }
    checkBlock("pixels", pixels.length, "offset", offset, spatial);
    for (int c = 0; c < channels; c++) {
      int from = offset + c * spatial;
      int to = from + spatial;
      long sum = 0;
      for (int i = from; i < to; i++) {
        sum += pixels[i] & 0xFF;
      }
      double m = (double) sum / spatial;
      double dev = 0;
      double sq = 0;
      for (int i = from; i < to; i++) {
        double d = (pixels[i] & 0xFF) - m;
        dev += d;
        sq += d * d;
      }
      setBlock(c, m * scale, sq * scale * scale, dev * scale, spatial);
    }
    absorbBlock(spatial);
  }

  /**
   * Folds {@code other} into this, as if all of its values had been added here. {@code other} is
   * not modified; merging an accumulator with itself doubles its count.
   */
  public void merge(ChannelStats other) {
    Objects.requireNonNull(other, "other");
    if (other.channels != channels) {
      throw new IllegalArgumentException(
          "cannot merge ChannelStats with "
              + other.channels
              + " channels into one with "
              + channels
              + " channels");
    }
    long nB = other.count;
    if (nB == 0) {
      return;
    }
    long nA = count;
    long n = Math.addExact(nA, nB);
    for (int c = 0; c < channels; c++) {
      combine(c, nA, nB, n, other.mean[c], other.m2[c]);
    }
    count = n;
  }

  /** Number of values added to {@code channel} (the same for every channel); 0 before any add. */
  public long count(int channel) {
    Objects.checkIndex(channel, channels);
    return count;
  }

  public double mean(int channel) {
    requireValues(channel);
    return mean[channel];
  }

  /** Population variance: M2 / count. */
  public double variance(int channel) {
    requireValues(channel);
    return m2[channel] / count;
  }

  /** Population standard deviation, the usual choice for input normalization. */
  public double std(int channel) {
    return Math.sqrt(variance(channel));
  }

  /** Unbiased sample variance: M2 / (count - 1); needs at least two values. */
  public double sampleVariance(int channel) {
    requireValues(channel);
    if (count < 2) {
      throw new IllegalStateException(
          "channel " + channel + ": sample variance needs at least 2 values, got " + count);
    }
    return m2[channel] / (count - 1);
  }

  public double[] means() {
    double[] out = new double[channels];
    for (int c = 0; c < channels; c++) {
      out[c] = mean(c);
    }
    return out;
  }

  public double[] stds() {
    double[] out = new double[channels];
    for (int c = 0; c < channels; c++) {
      out[c] = std(c);
    }
    return out;
  }

  /** Compact big-endian form for exchanging partial stats between ranks; see {@link #fromBytes}. */
  public byte[] toBytes() {
    return ChannelStatsCodec.encode(count, mean, m2);
  }

  /**
   * Decodes {@link #toBytes()} output.
   *
   * @throws IllegalArgumentException if the bytes are truncated, padded, of another version, or
   *     hold impossible values; the message names the length
   */
  public static ChannelStats fromBytes(byte[] b) {
    return ChannelStatsCodec.decode(b);
  }

  @Override
  public String toString() {
    if (count == 0) {
      return "ChannelStats[" + channels + " channels, count=0]";
    }
    return "ChannelStats["
        + channels
        + " channels, count="
        + count
        + ", mean="
        + Arrays.toString(means())
        + ", std="
        + Arrays.toString(stds())
        + "]";
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Records one channel's block moments. {@code dev} is the sum of deviations from the block mean,
   * ideally 0; subtracting {@code dev^2/n} removes the first-order error of the rounded mean (the
   * "corrected two-pass" algorithm).
   */
  private void setBlock(int c, double m, double sq, double dev, int n) {
    blockMean[c] = m;
    blockM2[c] = Math.max(0, sq - dev * dev / n);
  }

  private void absorbBlock(int nB) {
    long nA = count;
    long n = Math.addExact(nA, nB);
    for (int c = 0; c < channels; c++) {
      combine(c, nA, nB, n, blockMean[c], blockM2[c]);
    }
    count = n;
  }

  /** Chan et al.: pairwise update of (n, mean, M2) with a second set of moments. */
  private void combine(int c, long nA, long nB, long n, double meanB, double m2B) {
    if (nA == 0) {
      mean[c] = meanB;
      m2[c] = m2B;
      return;
    }
    double delta = meanB - mean[c];
    double fracB = (double) nB / n;
    mean[c] += delta * fracB;
    m2[c] += m2B + delta * delta * nA * fracB; // delta^2 * nA * nB / n, without overflowing a long
  }

  /** {@code length} is the array length or the buffer limit. */
  private void checkBlock(String name, int length, String startName, int start, int spatial) {
    if (spatial <= 0) {
      throw new IllegalArgumentException("spatial: " + spatial + " (expected: > 0)");
    }
    if (start < 0) {
      throw new IllegalArgumentException(startName + ": " + start + " (expected: >= 0)");
    }
    long need = (long) channels * spatial;
    long have = Math.max(0L, (long) length - start);
    if (need > have) {
      throw new IllegalArgumentException(
          name
              + ": "
              + have
              + " values from "
              + startName
              + " "
              + start
              + ", need "
              + need
              + " ("
              + channels
              + " channels * "
              + spatial
              + " spatial)");
    }
  }

  private void requireValues(int channel) {
    Objects.checkIndex(channel, channels);
    if (count == 0) {
      throw new IllegalStateException("channel " + channel + ": no values added");
    }
  }
}
