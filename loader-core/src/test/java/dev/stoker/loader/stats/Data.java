package dev.stoker.loader.stats;

import java.util.SplittableRandom;

/** Seeded synthetic samples for the tests. */
final class Data {

  private Data() {}

  /**
   * {@code count} channel-first float32 samples; channel {@code c} is {@code bases[c]} plus noise
   * uniform in [-halfWidth, halfWidth].
   */
  static float[][] channelsFirst(
      long seed, int count, int spatial, double[] bases, double halfWidth) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int channels = bases.length;
    float[][] out = new float[count][channels * spatial];
    for (float[] sample : out) {
      for (int c = 0; c < channels; c++) {
        for (int i = c * spatial; i < (c + 1) * spatial; i++) {
          sample[i] = (float) (bases[c] + rnd.nextDouble(-halfWidth, halfWidth));
        }
      }
    }
    return out;
  }

  /** Channel-first {@code [C, spatial]} to channel-last {@code [spatial, C]}. */
  static float[] toChannelsLast(float[] first, int channels, int spatial) {
    float[] last = new float[first.length];
    for (int c = 0; c < channels; c++) {
      for (int s = 0; s < spatial; s++) {
        last[s * channels + c] = first[c * spatial + s];
      }
    }
    return last;
  }
}
