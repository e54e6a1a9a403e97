package dev.stoker.loader.transform;

import static dev.stoker.loader.transform.Resampler.HALF;
import static dev.stoker.loader.transform.Resampler.PRECISION_BITS;

/**
 * The horizontal pass of {@link Resampler}: each output pixel a weighted sum of {@code taps}
 * neighbouring input pixels along its row, clipped to 8 bits. The sums gather pixels at irregular
 * steps, which the JIT cannot vectorize; for RGB with two to four taps (downscaling by up to about
 * 1.5, and every upscale) the sum is written out per tap count, without the inner loop's branches
 * and counter, and the generic loop serves the rest.
 *
 * <p>Pillow clips each sum to 0..255; here the shift alone gives the same value. The bilinear
 * (triangle) weights are never negative, so no sum is below 0; and their fixed-point values, each
 * rounded up by at most half a unit, add up to at most {@code 2^22 + taps / 2}, so 255 times that
 * plus the rounding half stays below {@code 256 << 22} for any window under 16,000 taps.
 */
final class HorizontalPass {
  private HorizontalPass() {}

  /** A fixed-point sum of non-negative weights to its 8-bit value: see the class comment. */
  private static int down(int sum) {
    return sum >> PRECISION_BITS;
  }

  /**
   * Resamples {@code count} rows of {@code in} (the first at {@code start}, {@code stride} bytes
   * apart, {@code c} channels) to {@code outW} pixels each, into {@code out[0..count)}.
   *
   * @param bounds per output pixel, its window's first input pixel and (unused here) its count
   * @param weights per output pixel, {@code ksize} weights of which the first {@code taps} apply
   */
  static void run(
      byte[] in,
      int start,
      int stride,
      int count,
      int c,
      int outW,
      int[] bounds,
      int[] weights,
      int ksize,
      int taps,
      int[][] out) {
    for (int y = 0; y < count; y++) {
      int row = start + y * stride;
      int[] to = out[y];
      if (c == 3 && taps == 2) {
        rgb2(in, row, outW, bounds, weights, ksize, to);
      } else if (c == 3 && taps == 3) {
        rgb3(in, row, outW, bounds, weights, ksize, to);
      } else if (c == 3 && taps == 4) {
        rgb4(in, row, outW, bounds, weights, ksize, to);
      } else {
        any(in, row, c, outW, bounds, weights, ksize, taps, to);
      }
    }
  }

  private static void rgb2(
      byte[] in, int row, int outW, int[] bounds, int[] k, int ksize, int[] out) {
    for (int xx = 0, o = 0; xx < outW; xx++, o += 3) {
      int p = row + bounds[2 * xx] * 3;
      int kk = xx * ksize;
      int w0 = k[kk];
      int w1 = k[kk + 1];
      out[o] = down(HALF + (in[p] & 0xff) * w0 + (in[p + 3] & 0xff) * w1);
      out[o + 1] = down(HALF + (in[p + 1] & 0xff) * w0 + (in[p + 4] & 0xff) * w1);
      out[o + 2] = down(HALF + (in[p + 2] & 0xff) * w0 + (in[p + 5] & 0xff) * w1);
    }
  }

  private static void rgb3(
      byte[] in, int row, int outW, int[] bounds, int[] k, int ksize, int[] out) {
    for (int xx = 0, o = 0; xx < outW; xx++, o += 3) {
      int p = row + bounds[2 * xx] * 3;
      int kk = xx * ksize;
      int w0 = k[kk];
      int w1 = k[kk + 1];
      int w2 = k[kk + 2];
      out[o] = down(HALF + (in[p] & 0xff) * w0 + (in[p + 3] & 0xff) * w1 + (in[p + 6] & 0xff) * w2);
      out[o + 1] =
          down(HALF + (in[p + 1] & 0xff) * w0 + (in[p + 4] & 0xff) * w1 + (in[p + 7] & 0xff) * w2);
      out[o + 2] =
          down(HALF + (in[p + 2] & 0xff) * w0 + (in[p + 5] & 0xff) * w1 + (in[p + 8] & 0xff) * w2);
    }
  }

  private static void rgb4(
      byte[] in, int row, int outW, int[] bounds, int[] k, int ksize, int[] out) {
    for (int xx = 0, o = 0; xx < outW; xx++, o += 3) {
      int p = row + bounds[2 * xx] * 3;
      int kk = xx * ksize;
      int w0 = k[kk];
      int w1 = k[kk + 1];
      int w2 = k[kk + 2];
      int w3 = k[kk + 3];
      for (int ch = 0; ch < 3; ch++) {
        int q = p + ch;
        out[o + ch] =
            down(
                HALF
                    + (in[q] & 0xff) * w0
                    + (in[q + 3] & 0xff) * w1
                    + (in[q + 6] & 0xff) * w2
                    + (in[q + 9] & 0xff) * w3);
      }
    }
  }

  private static void any(
      byte[] in, int row, int c, int outW, int[] bounds, int[] k, int ksize, int taps, int[] out) {
    for (int xx = 0, o = 0; xx < outW; xx++, o += c) {
      int p = row + bounds[2 * xx] * c;
      int kk = xx * ksize;
      for (int ch = 0; ch < c; ch++) {
        int s = HALF;
        for (int x = 0, q = p + ch; x < taps; x++, q += c) {
          s += (in[q] & 0xff) * k[kk + x];
        }
        out[o + ch] = down(s);
      }
    }
  }
}
