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
  static final int PRECISION_BITS = 32 - 8 - 2;
  static final int HALF = 1 << (PRECISION_BITS - 1);

  private int[] boundsX = new int[0];
  private int[] boundsY = new int[0];
  private int[] weightsX = new int[0];
  private int[] weightsY = new int[0];
  private double[] exact = new double[0];

  /** The horizontal pass's rows (or the input's, widened), each at least a row of its output. */
  private int[][] rows = new int[0][];

  private int[] sums = new int[0];
  private final ImageRows intoImage = new ImageRows();

  /** Receives a resampled image row by row. */
  interface Rows {
    /** Called once before the rows, with the output's size. */
    void begin(int width, int height, int channels);

    /**
     * Where the values of a row go: channels interleaved, left to right, unless the sink asks for
     * its own order (called after {@link #begin}).
     */
    default RowLayout layout(int width, int channels) {
      return RowLayout.interleaved(width, channels);
    }

    /**
     * Row {@code y}: {@code width x channels} values of 0 to 255, placed as {@link #layout} says,
     * at the start of {@code values} (which is reused for the next row).
     */
    void row(int y, int[] values);
  }

  /** A sink writing rows into {@code dst}, as bytes; the same object on every call. */
  Rows into(Image dst) {
    intoImage.image = dst;
    return intoImage;
  }

  /**
   * Resamples region {@code [rx0, rx1) x [ry0, ry1)} of {@code src}, restricted to box {@code (bx0,
   * by0, bx1, by1)} in the region's coordinates, to {@code outW x outH}, handing each output row to
   * {@code sink} ({@link #into} writes them into an image).
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
      Rows sink) {
    int c = src.channels;
    int inW = rx1 - rx0;
    int inH = ry1 - ry0;
    float fx0 = (float) bx0;
    float fx1 = (float) bx1;
    float fy0 = (float) by0;
    float fy1 = (float) by1;
    sink.begin(outW, outH, c);
    RowLayout layout = sink.layout(outW, c);
    boolean needH = outW != inW || fx0 != 0 || fx1 != outW;
    boolean needV = outH != inH || fy0 != 0 || fy1 != outH;
    int kx = 0;
    int taps = 0;
    if (needH) {
      boundsX = grow(boundsX, 2 * outW);
      kx = coefficients(inW, fx0, fx1, outW, true);
      taps = uniformTaps(inW, outW, kx);
    }
    int ky = 0;
    if (needV) {
      boundsY = grow(boundsY, 2 * outH);
      ky = coefficients(inH, fy0, fy1, outH, false);
    }
    int srcStride = src.width * c;
    int regionStart = ry0 * srcStride + rx0 * c;
    int first = 0;
    int count = outH;
    if (needV) {
      first = boundsY[0];
      count = boundsY[2 * outH - 2] + boundsY[2 * outH - 1] - first;
      for (int i = 0; i < outH; i++) {
        boundsY[2 * i] -= first;
      }
    }
    int rowLength = (needH ? outW : inW) * c;
    growRows(count, rowLength);
    int start = regionStart + first * srcStride;
    if (needH) {
      HorizontalPass.run(
          src.pixels, start, srcStride, count, c, outW, boundsX, weightsX, kx, taps, layout, rows);
    } else {
      for (int y = 0; y < count; y++) {
        widen(src.pixels, start + y * srcStride, inW, c, layout, rows[y]);
      }
    }
    if (needV) {
      vertical(rowLength, outH, ky, sink);
    } else {
      for (int y = 0; y < outH; y++) {
        sink.row(y, rows[y]);
      }
    }
  }

  /** A row of {@code width} pixels of {@code c} channels to ints, placed as {@code layout} says. */
  private static void widen(byte[] in, int from, int width, int c, RowLayout layout, int[] out) {
    if (layout.inInputOrder(c)) {
      for (int e = 0; e < width * c; e++) {
        out[e] = in[from + e] & 0xff;
      }
      return;
    }
    for (int x = 0, e = from; x < width; x++) {
      for (int ch = 0; ch < c; ch++, e++) {
        out[layout.at(x, ch)] = in[e] & 0xff;
      }
    }
  }

  private void growRows(int count, int length) {
    if (rows.length < count) {
      rows = java.util.Arrays.copyOf(rows, Math.max(count, rows.length * 3 / 2));
    }
    for (int y = 0; y < count; y++) {
      if (rows[y] == null || rows[y].length < length) {
        rows[y] = new int[length];
      }
    }
  }

  /**
   * Gives every output pixel of the horizontal pass the same number of taps, the largest count
   * among them: a window that would run past the input's end starts earlier instead, its weights
   * moved along with zeros before them. The sums are unchanged (zero weights add nothing), and
   * {@link HorizontalPass} can then run one straight-line sum per tap count.
   *
   * @return the taps each output pixel reads from its window's start
   */
  private int uniformTaps(int inSize, int outSize, int ksize) {
    int[] bounds = boundsX;
    int[] k = weightsX;
    int taps = 0;
    for (int xx = 0; xx < outSize; xx++) {
      taps = Math.max(taps, bounds[2 * xx + 1]);
    }
    for (int xx = 0; xx < outSize; xx++) {
      int start = bounds[2 * xx];
      int shift = start + taps - inSize;
      if (shift > 0) {
        int at = xx * ksize;
        System.arraycopy(k, at, k, at + shift, bounds[2 * xx + 1]);
        java.util.Arrays.fill(k, at, at + shift, 0);
        bounds[2 * xx] = start - shift;
      }
      bounds[2 * xx + 1] = taps;
    }
    return taps;
  }

  /**
   * Per output row, a weighted sum of whole rows of the horizontal pass: the inner loops run along
   * a row of one array each, which the JIT vectorizes, and so is the clipping, done with shifts and
   * masks rather than {@code Math.min}, which it does not vectorize on Java 17.
   */
  private void vertical(int rowLength, int outH, int ksize, Rows sink) {
    int[] bounds = boundsY;
    int[] k = weightsY;
    sums = grow(sums, rowLength);
    int[] acc = sums;
    for (int yy = 0; yy < outH; yy++) {
      int n = bounds[2 * yy + 1];
      int first = bounds[2 * yy];
      int kk = yy * ksize;
      java.util.Arrays.fill(acc, 0, rowLength, HALF);
      for (int y = 0; y < n; y++) {
        addScaled(rows[first + y], k[kk + y], acc, rowLength);
      }
      clipAll(acc, rowLength);
      sink.row(yy, acc);
    }
  }

  private static void addScaled(int[] row, int weight, int[] acc, int length) {
    for (int e = 0; e < length; e++) {
      acc[e] += row[e] * weight;
    }
  }

  /** Each sum to 8 bits: shifted down, then clipped to 0..255 without a branch. */
  private static void clipAll(int[] acc, int length) {
    for (int e = 0; e < length; e++) {
      acc[e] = clip(acc[e]);
    }
  }

  /** A fixed-point sum to 0..255: {@code min(255, max(0, sum >> PRECISION_BITS))}. */
  static int clip(int sum) {
    int v = sum >> PRECISION_BITS;
    int over = v - 255;
    v -= over & ~(over >> 31);
    return v & ~(v >> 31);
  }

  /** Writes the rows into an image, as bytes. */
  private static final class ImageRows implements Rows {
    Image image;

    @Override
    public void begin(int width, int height, int channels) {
      image.reset(width, height, channels);
    }

    @Override
    public void row(int y, int[] values) {
      int length = image.width * image.channels;
      byte[] px = image.pixels;
      int at = y * length;
      for (int e = 0; e < length; e++) {
        px[at + e] = (byte) values[e];
      }
    }
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
