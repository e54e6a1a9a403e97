package dev.stoker.loader.transform;

/**
 * Pillow's {@code ImagingResample} with the bilinear filter, transcribed plainly for tests: the
 * coefficients of {@code precompute_coeffs} and {@code normalize_coeffs_8bpc}, then a horizontal
 * pass over every row of the region and a vertical pass, each rounded and clipped to 8 bits.
 */
final class PillowFilter {
  private static final int BITS = 22;

  private PillowFilter() {}

  /** The pixels {@link Resampler} must give for the same arguments. */
  static byte[] resample(
      Image src,
      int rx0,
      int ry0,
      int rx1,
      int ry1,
      double bx0,
      double by0,
      double bx1,
      double by1,
      int outW,
      int outH) {
    int c = src.channels;
    int inW = rx1 - rx0;
    int inH = ry1 - ry0;
    int[][] xs = coefficients(inW, (float) bx0, (float) bx1, outW);
    int[][] ys = coefficients(inH, (float) by0, (float) by1, outH);
    int[] wide = new int[inH * outW * c];
    for (int y = 0; y < inH; y++) {
      for (int xx = 0; xx < outW; xx++) {
        for (int ch = 0; ch < c; ch++) {
          long sum = 1 << (BITS - 1);
          for (int t = 0; t < xs[xx].length - 1; t++) {
            int x = xs[xx][0] + t;
            sum +=
                (long) (src.pixels[((ry0 + y) * src.width + rx0 + x) * c + ch] & 0xff)
                    * xs[xx][t + 1];
          }
          wide[(y * outW + xx) * c + ch] = clip(sum);
        }
      }
    }
    byte[] out = new byte[outH * outW * c];
    for (int yy = 0; yy < outH; yy++) {
      for (int e = 0; e < outW * c; e++) {
        long sum = 1 << (BITS - 1);
        for (int t = 0; t < ys[yy].length - 1; t++) {
          sum += (long) wide[(ys[yy][0] + t) * outW * c + e] * ys[yy][t + 1];
        }
        out[yy * outW * c + e] = (byte) clip(sum);
      }
    }
    return out;
  }

  /** Per output pixel: its first input pixel, then the fixed-point weights of its window. */
  private static int[][] coefficients(int inSize, float in0, float in1, int outSize) {
    double scale = (double) (in1 - in0) / outSize;
    double filterScale = Math.max(scale, 1.0);
    double support = filterScale;
    int[][] result = new int[outSize][];
    for (int xx = 0; xx < outSize; xx++) {
      double center = in0 + (xx + 0.5) * scale;
      int xmin = Math.max(0, (int) (center - support + 0.5));
      int xmax = Math.min(inSize, (int) (center + support + 0.5)) - xmin;
      double[] w = new double[Math.max(0, xmax)];
      double total = 0;
      for (int x = 0; x < w.length; x++) {
        double t = Math.abs((x + xmin - center + 0.5) / filterScale);
        w[x] = t < 1.0 ? 1.0 - t : 0.0;
        total += w[x];
      }
      result[xx] = new int[w.length + 1];
      result[xx][0] = xmin;
      for (int x = 0; x < w.length; x++) {
        double v = total == 0 ? 0 : w[x] / total;
        result[xx][x + 1] = (int) (0.5 + v * (1 << BITS));
      }
    }
    return result;
  }

  private static int clip(long sum) {
    return (int) Math.min(255, Math.max(0, sum >> BITS));
  }
}
