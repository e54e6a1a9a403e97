package dev.stoker.loader.stats;

/** Test oracle: plain float64 two-pass mean and population variance over all values at once. */
final class Reference {

  final double mean;
  final double variance;
  final long count;

  private Reference(double mean, double variance, long count) {
    this.mean = mean;
    this.variance = variance;
    this.count = count;
  }

  double std() {
    return Math.sqrt(variance);
  }

  /** Channel {@code c} of {@code samples} channel-first samples of {@code spatial} values each. */
  static Reference ofChannel(float[][] samples, int c, int spatial) {
    long n = 0;
    double sum = 0;
    for (float[] s : samples) {
      for (int i = c * spatial; i < (c + 1) * spatial; i++) {
        sum += s[i];
        n++;
      }
    }
    double mean = sum / n;
    double sq = 0;
    for (float[] s : samples) {
      for (int i = c * spatial; i < (c + 1) * spatial; i++) {
        double d = s[i] - mean;
        sq += d * d;
      }
    }
    return new Reference(mean, sq / n, n);
  }

  static double relativeError(double actual, double expected) {
    return Math.abs(actual - expected) / Math.abs(expected);
  }
}
