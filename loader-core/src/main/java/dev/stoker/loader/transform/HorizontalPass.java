package dev.stoker.loader.transform;

import static dev.stoker.loader.transform.Resampler.HALF;
import static dev.stoker.loader.transform.Resampler.PRECISION_BITS;

/**
 * The horizontal pass of {@link Resampler}: each output pixel a weighted sum of {@code taps}
 * neighbouring input pixels along its row, clipped to 8 bits. The sums gather pixels at irregular
 * steps, which the JIT cannot vectorize; for RGB with two to five taps (downscaling by up to about
 * 2, and every upscale) the sums are written out per tap count for two rows at once, which then
 * share each output pixel's window and weights, and the generic loop serves the rest.
 *
 * <p>Each output value goes where a {@link RowLayout} says: channels interleaved or in planes, left
 * to right or mirrored, so that the vertical pass and the output step read whole rows in the
 * sample's final order.
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
   * apart, {@code c} channels) to {@code outW} pixels each, into {@code out[0..count)} as {@code
   * layout} places them.
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
      RowLayout layout,
      int[][] out) {
    if (c != 3 || taps < 2 || taps > 5) {
      for (int y = 0; y < count; y++) {
        any(in, start + y * stride, c, outW, bounds, weights, ksize, taps, layout, out[y]);
      }
      return;
    }
    Rgb pair = new Rgb(in, outW, bounds, weights, ksize, layout);
    for (int y = 0; y < count; y += 2) {
      // An odd count's last row is its own pair: computed twice into the same row.
      int second = Math.min(y + 1, count - 1);
      pair.rows(start + y * stride, start + second * stride, out[y], out[second], taps);
    }
  }

  /** RGB rows two at a time: per output pixel, one window and one set of weights for both. */
  private static final class Rgb {
    private final byte[] in;
    private final int outW;
    private final int[] bounds;
    private final int[] k;
    private final int ksize;
    private final int first;
    private final int step;
    private final int g;
    private final int b;

    Rgb(byte[] in, int outW, int[] bounds, int[] k, int ksize, RowLayout layout) {
      this.in = in;
      this.outW = outW;
      this.bounds = bounds;
      this.k = k;
      this.ksize = ksize;
      this.first = layout.first();
      this.step = layout.pixelStep();
      this.g = layout.channelStep();
      this.b = 2 * layout.channelStep();
    }

    void rows(int row1, int row2, int[] out1, int[] out2, int taps) {
      switch (taps) {
        case 2 -> taps2(row1, row2, out1, out2);
        case 3 -> taps3(row1, row2, out1, out2);
        case 4 -> taps4(row1, row2, out1, out2);
        default -> taps5(row1, row2, out1, out2);
      }
    }

    private void taps2(int row1, int row2, int[] out1, int[] out2) {
      byte[] in = this.in;
      for (int xx = 0, o = first; xx < outW; xx++, o += step) {
        int at = bounds[2 * xx] * 3;
        int kk = xx * ksize;
        int w0 = k[kk];
        int w1 = k[kk + 1];
        int p = row1 + at;
        out1[o] = down(HALF + (in[p] & 0xff) * w0 + (in[p + 3] & 0xff) * w1);
        out1[o + g] = down(HALF + (in[p + 1] & 0xff) * w0 + (in[p + 4] & 0xff) * w1);
        out1[o + b] = down(HALF + (in[p + 2] & 0xff) * w0 + (in[p + 5] & 0xff) * w1);
        int q = row2 + at;
        out2[o] = down(HALF + (in[q] & 0xff) * w0 + (in[q + 3] & 0xff) * w1);
        out2[o + g] = down(HALF + (in[q + 1] & 0xff) * w0 + (in[q + 4] & 0xff) * w1);
        out2[o + b] = down(HALF + (in[q + 2] & 0xff) * w0 + (in[q + 5] & 0xff) * w1);
      }
    }

    private void taps3(int row1, int row2, int[] out1, int[] out2) {
      byte[] in = this.in;
      for (int xx = 0, o = first; xx < outW; xx++, o += step) {
        int at = bounds[2 * xx] * 3;
        int kk = xx * ksize;
        int w0 = k[kk];
        int w1 = k[kk + 1];
        int w2 = k[kk + 2];
        int p = row1 + at;
        out1[o] = down(sum3(in, p, w0, w1, w2));
        out1[o + g] = down(sum3(in, p + 1, w0, w1, w2));
        out1[o + b] = down(sum3(in, p + 2, w0, w1, w2));
        int q = row2 + at;
        out2[o] = down(sum3(in, q, w0, w1, w2));
        out2[o + g] = down(sum3(in, q + 1, w0, w1, w2));
        out2[o + b] = down(sum3(in, q + 2, w0, w1, w2));
      }
    }

    private static int sum3(byte[] in, int p, int w0, int w1, int w2) {
      return HALF + (in[p] & 0xff) * w0 + (in[p + 3] & 0xff) * w1 + (in[p + 6] & 0xff) * w2;
    }

    private void taps4(int row1, int row2, int[] out1, int[] out2) {
      byte[] in = this.in;
      for (int xx = 0, o = first; xx < outW; xx++, o += step) {
        int at = bounds[2 * xx] * 3;
        int kk = xx * ksize;
        int w0 = k[kk];
        int w1 = k[kk + 1];
        int w2 = k[kk + 2];
        int w3 = k[kk + 3];
        int p = row1 + at;
        out1[o] = down(sum4(in, p, w0, w1, w2, w3));
        out1[o + g] = down(sum4(in, p + 1, w0, w1, w2, w3));
        out1[o + b] = down(sum4(in, p + 2, w0, w1, w2, w3));
        int q = row2 + at;
        out2[o] = down(sum4(in, q, w0, w1, w2, w3));
        out2[o + g] = down(sum4(in, q + 1, w0, w1, w2, w3));
        out2[o + b] = down(sum4(in, q + 2, w0, w1, w2, w3));
      }
    }

    private static int sum4(byte[] in, int p, int w0, int w1, int w2, int w3) {
      return HALF
          + (in[p] & 0xff) * w0
          + (in[p + 3] & 0xff) * w1
          + (in[p + 6] & 0xff) * w2
          + (in[p + 9] & 0xff) * w3;
    }

    private void taps5(int row1, int row2, int[] out1, int[] out2) {
      byte[] in = this.in;
      for (int xx = 0, o = first; xx < outW; xx++, o += step) {
        int at = bounds[2 * xx] * 3;
        int kk = xx * ksize;
        int w0 = k[kk];
        int w1 = k[kk + 1];
        int w2 = k[kk + 2];
        int w3 = k[kk + 3];
        int w4 = k[kk + 4];
        int p = row1 + at;
        out1[o] = down(sum5(in, p, w0, w1, w2, w3, w4));
        out1[o + g] = down(sum5(in, p + 1, w0, w1, w2, w3, w4));
        out1[o + b] = down(sum5(in, p + 2, w0, w1, w2, w3, w4));
        int q = row2 + at;
        out2[o] = down(sum5(in, q, w0, w1, w2, w3, w4));
        out2[o + g] = down(sum5(in, q + 1, w0, w1, w2, w3, w4));
        out2[o + b] = down(sum5(in, q + 2, w0, w1, w2, w3, w4));
      }
    }

    private static int sum5(byte[] in, int p, int w0, int w1, int w2, int w3, int w4) {
      return HALF
          + (in[p] & 0xff) * w0
          + (in[p + 3] & 0xff) * w1
          + (in[p + 6] & 0xff) * w2
          + (in[p + 9] & 0xff) * w3
          + (in[p + 12] & 0xff) * w4;
    }
  }

  private static void any(
      byte[] in,
      int row,
      int c,
      int outW,
      int[] bounds,
      int[] k,
      int ksize,
      int taps,
      RowLayout layout,
      int[] out) {
    int step = layout.pixelStep();
    int channelStep = layout.channelStep();
    for (int xx = 0, o = layout.first(); xx < outW; xx++, o += step) {
      int p = row + bounds[2 * xx] * c;
      int kk = xx * ksize;
      for (int ch = 0; ch < c; ch++) {
        int s = HALF;
        for (int x = 0, q = p + ch; x < taps; x++, q += c) {
          s += (in[q] & 0xff) * k[kk + x];
        }
        out[o + ch * channelStep] = down(s);
      }
    }
  }
}
