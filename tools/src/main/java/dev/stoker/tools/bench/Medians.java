package dev.stoker.tools.bench;

import java.util.Arrays;

/** Medians of measurements. */
final class Medians {
  private Medians() {}

  /** The median of {@code values} (the mean of the middle two for an even count); NaN if empty. */
  static double of(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }
}
