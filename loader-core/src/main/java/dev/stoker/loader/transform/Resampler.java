package dev.stoker.loader.transform;

/**
 * Bilinear resampling with antialiasing exactly as Pillow's {@code Image.resize(size, BILINEAR,
 * box)} computes it ({@code libImaging/Resample.c}): separable, horizontal pass first over only the
 * rows the vertical pass reads, a triangle filter whose support grows with the downscale factor,
 * weights normalized in double then rounded to 22-bit fixed point, sums rounded and clipped to 8
 * bits after each pass. The pixels are Pillow's, bit for bit.
 *
 * <p>A region of the source stands in for Pillow's crop (the filter does not read past it), and a
 * box inside the region, in fractional pixels, for {@code resize}'s {@code box} argument (used
 * after a reduced-scale decode). One per worker thread: its weight tables and intermediate rows are
 * reused.
 */
final class Resampler {
  private static final int PRECISION_BITS = 32 - 8 - 2;
  private static final int HALF = 1 << (PRECISION_BITS - 1);

  private int[] boundsX = new int[0];
  private int[] boundsY = new int[0];
  private int[] weightsX = new int[0];
  private int[] weightsY = new int[0];
  private double[] exact = new double[0];
  private int[] temp = new int[0];
  private int[] sums = new int[0];

  /**
   * Resamples region {@code [rx0, rx1) x [ry0, ry1)} of {@code src}, restricted to box {@code (bx0,
   * by0, bx1, by1)} in the region's coordinates, into {@code dst} at {@code outW x outH}.
   */
  void resample(
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
      int outH,
      Image dst) {
    int c = src.channels;
    int inW = rx1 - rx0;
    int inH = ry1 - ry0;
    float fx0 = (float) bx0;
    float fx1 = (float) bx1;
    float fy0 = (float) by0;
    float fy1 = (float) by1;
    dst.reset(outW, outH, c);
    boolean needH = outW != inW || fx0 != 0 || fx1 != outW;
    boolean needV = outH != inH || fy0 != 0 || fy1 != outH;
    int kx = 0;
    if (needH) {
      boundsX = grow(boundsX, 2 * outW);
      kx = coefficients(inW, fx0, fx1, outW, true);
    }
    int ky = 0;
    if (needV) {
      boundsY = grow(boundsY, 2 * outH);
      ky = coefficients(inH, fy0, fy1, outH, false);
    }
    int srcStride = src.width * c;
    int regionStart = ry0 * srcStride + rx0 * c;
    if (needH && needV) {
      int first = boundsY[0];
      int last = boundsY[2 * outH - 2] + boundsY[2 * outH - 1];
      temp = grow(temp, outW * c * (last - first));
      horizontal(
          src.pixels, regionStart + first * srcStride, srcStride, last - first, c, outW, kx, temp);
      for (int i = 0; i < outH; i++) {
        boundsY[2 * i] -= first;
      }
      vertical(temp, outW * c, outH, ky, dst.pixels);
    } else if (needH) {
      temp = grow(temp, outW * c * outH);
      horizontal(src.pixels, regionStart, srcStride, outH, c, outW, kx, temp);
      for (int i = 0, n = outW * c * outH; i < n; i++) {
        dst.pixels[i] = (byte) temp[i];
      }
    } else if (needV) {
      int rowBytes = outW * c;
      temp = grow(temp, rowBytes * inH);
      for (int y = 0; y < inH; y++) {
        int from = regionStart + y * srcStride;
        int to = y * rowBytes;
        for (int e = 0; e < rowBytes; e++) {
          temp[to + e] = src.pixels[from + e] & 0xff;
        }
      }
      vertical(temp, rowBytes, outH, ky, dst.pixels);
    } else {
      for (int y = 0; y < outH; y++) {
        System.arraycopy(
            src.pixels, regionStart + y * srcStride, dst.pixels, y * outW * c, outW * c);
      }
    }
  }

  /**
   * The horizontal pass, into {@code out} as ints of 0 to 255: the vertical pass then runs on int
   * rows only, a loop the JIT vectorizes (a byte-to-int loop it does not on Java 17).
   */
  private void horizontal(
      byte[] in, int start, int stride, int rows, int c, int outW, int ksize, int[] out) {
    int[] bounds = boundsX;
    int[] k = weightsX;
    int o = 0;
    for (int y = 0; y < rows; y++) {
      int row = start + y * stride;
      if (c == 3) {
        for (int xx = 0; xx < outW; xx++) {
          int n = bounds[2 * xx + 1];
          int p = row + bounds[2 * xx] * 3;
          int kk = xx * ksize;
          int s0 = HALF;
          int s1 = HALF;
          int s2 = HALF;
          for (int x = 0; x < n; x++, p += 3) {
            int w = k[kk + x];
            s0 += (in[p] & 0xff) * w;
            s1 += (in[p + 1] & 0xff) * w;
            s2 += (in[p + 2] & 0xff) * w;
          }
          out[o++] = clip(s0);
          out[o++] = clip(s1);
          out[o++] = clip(s2);
        }
      } else {
        for (int xx = 0; xx < outW; xx++) {
          int n = bounds[2 * xx + 1];
          int p = row + bounds[2 * xx];
          int kk = xx * ksize;
          int s = HALF;
          for (int x = 0; x < n; x++) {
            s += (in[p + x] & 0xff) * k[kk + x];
          }
          out[o++] = clip(s);
        }
      }
    }
  }

  /**
   * Per output row, a weighted sum of whole input rows (ints of 0 to 255, {@code rowBytes} each):
   * the inner loop runs along the row.
   */
  private void vertical(int[] in, int rowBytes, int outH, int ksize, byte[] out) {
    int[] bounds = boundsY;
    int[] k = weightsY;
    sums = grow(sums, rowBytes);
    int[] acc = sums;
    for (int yy = 0; yy < outH; yy++) {
      int n = bounds[2 * yy + 1];
      int first = bounds[2 * yy] * rowBytes;
      int kk = yy * ksize;
      java.util.Arrays.fill(acc, 0, rowBytes, HALF);
      for (int y = 0; y < n; y++) {
        int w = k[kk + y];
        int p = first + y * rowBytes;
        for (int e = 0; e < rowBytes; e++) {
          acc[e] += in[p + e] * w;
        }
      }
      int o = yy * rowBytes;
      for (int e = 0; e < rowBytes; e++) {
        out[o + e] = clip8(acc[e]);
      }
    }
  }

  private static int clip(int sum) {
    return Math.min(255, Math.max(0, sum >> PRECISION_BITS));
  }

  private static byte clip8(int sum) {
    return (byte) Math.min(255, Math.max(0, sum >> PRECISION_BITS));
  }

  /** Pillow's {@code precompute_coeffs} then {@code normalize_coeffs_8bpc}; the kernel size. */
  private int coefficients(int inSize, float in0, float in1, int outSize, boolean horizontal) {
    double scale = (double) (in1 - in0) / outSize;
    double filterScale = Math.max(scale, 1.0);
    double support = filterScale; // the triangle's support is 1
    int ksize = (int) Math.ceil(support) * 2 + 1;
    int[] bounds = horizontal ? boundsX : boundsY;
    int[] weights = grow(horizontal ? weightsX : weightsY, outSize * ksize);
    if (horizontal) {
      weightsX = weights;
    } else {
      weightsY = weights;
    }
    exact = grow(exact, ksize);
    double[] w = exact;
    double inverse = 1.0 / filterScale;
    for (int xx = 0; xx < outSize; xx++) {
      double center = in0 + (xx + 0.5) * scale;
      int xmin = (int) (center - support + 0.5);
      if (xmin < 0) {
        xmin = 0;
      }
      int xmax = (int) (center + support + 0.5);
      if (xmax > inSize) {
        xmax = inSize;
      }
      xmax -= xmin;
      double total = 0.0;
      for (int x = 0; x < xmax; x++) {
        double t = Math.abs((x + xmin - center + 0.5) * inverse);
        double v = t < 1.0 ? 1.0 - t : 0.0;
        w[x] = v;
        total += v;
      }
      int at = xx * ksize;
      for (int x = 0; x < ksize; x++) {
        double v = x < xmax && total != 0.0 ? w[x] / total : 0.0;
        if (x >= xmax) {
          v = 0.0;
        }
        weights[at + x] =
            v < 0
                ? (int) (-0.5 + v * (1 << PRECISION_BITS))
                : (int) (0.5 + v * (1 << PRECISION_BITS));
      }
      bounds[2 * xx] = xmin;
      bounds[2 * xx + 1] = xmax;
    }
    return ksize;
  }

  private static int[] grow(int[] array, int length) {
    return array.length >= length ? array : new int[length];
  }

  private static double[] grow(double[] array, int length) {
    return array.length >= length ? array : new double[length];
  }
}
