package dev.stoker.loader.transform;

import dev.stoker.loader.SampleWriter;

/**
 * The output step fed straight from the resampler, row by row: each clipped pixel goes once into
 * the field's final layout (CHW floats through the normalization's tables, or uint8 CHW or HWC),
 * mirrored when the spec's flips say so, and the sample is then written with one bulk copy. Used
 * when a spec's first step resizes and only flips follow it; it saves the passes that clip to
 * bytes, flip, reorder to planes and normalize one after the other. One per worker thread.
 */
final class OutputRows implements Resampler.Rows {
  private float[][] tables;
  private boolean chw;
  private boolean mirror;
  private float[] floats = new float[0];
  private byte[] bytes = new byte[0];
  private int width;
  private int height;
  private int channels;

  /**
   * Readies the next sample.
   *
   * @param tables per channel, the float each pixel value becomes; null for uint8
   * @param chw planes ({@code [C, H, W]}) rather than interleaved ({@code [H, W, C]}, uint8 only)
   * @param mirror whether the image is flipped left to right
   */
  OutputRows prepare(float[][] tables, boolean chw, boolean mirror) {
    this.tables = tables;
    this.chw = chw;
    this.mirror = mirror;
    return this;
  }

  int width() {
    return width;
  }

  int height() {
    return height;
  }

  @Override
  public void begin(int width, int height, int channels) {
    this.width = width;
    this.height = height;
    this.channels = channels;
    int n = Math.multiplyExact(Math.multiplyExact(width, height), channels);
    if (tables != null && floats.length < n) {
      floats = new float[n];
    } else if (tables == null && bytes.length < n) {
      bytes = new byte[n];
    }
  }

  @Override
  public void row(int y, int[] values) {
    int plane = width * height;
    int base = y * width;
    int step = mirror ? -1 : 1;
    int x0 = mirror ? base + width - 1 : base;
    int c = channels;
    if (tables != null && c == 3) {
      float[] t0 = tables[0];
      float[] t1 = tables[1];
      float[] t2 = tables[2];
      float[] f = floats;
      for (int x = 0, e = 0, at = x0; x < width; x++, e += 3, at += step) {
        f[at] = t0[values[e]];
        f[plane + at] = t1[values[e + 1]];
        f[2 * plane + at] = t2[values[e + 2]];
      }
    } else if (tables != null) {
      for (int x = 0, e = 0, at = x0; x < width; x++, e += c, at += step) {
        for (int ch = 0; ch < c; ch++) {
          floats[ch * plane + at] = tables[ch][values[e + ch]];
        }
      }
    } else if (chw) {
      for (int x = 0, e = 0, at = x0; x < width; x++, e += c, at += step) {
        for (int ch = 0; ch < c; ch++) {
          bytes[ch * plane + at] = (byte) values[e + ch];
        }
      }
    } else {
      for (int x = 0, e = 0, at = x0; x < width; x++, e += c, at += step) {
        for (int ch = 0; ch < c; ch++) {
          bytes[at * c + ch] = (byte) values[e + ch];
        }
      }
    }
  }

  /** Writes the sample's pixels into {@code field} of {@code out}. */
  void write(SampleWriter out, int field) {
    int n = width * height * channels;
    if (tables != null) {
      out.putFloats(field, 0, floats, 0, n);
    } else {
      out.putBytes(field, 0, bytes, 0, n);
    }
  }
}
