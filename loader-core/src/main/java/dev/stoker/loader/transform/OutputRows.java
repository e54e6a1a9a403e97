package dev.stoker.loader.transform;

import dev.stoker.loader.SampleWriter;

/**
 * The output step fed straight from the resampler, row by row: the resampler already places each
 * value in the field's final order ({@link #layout}: channel planes for CHW, mirrored when the
 * spec's flips say so), so each row goes into the field's layout (CHW floats through the
 * normalization's tables, or uint8 CHW or HWC) with straight loops, and the sample is then written
 * with one bulk copy. Used when a spec's first step resizes and only flips follow it; it saves the
 * passes that clip to bytes, flip, reorder to planes and normalize one after the other. One per
 * worker thread.
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

  /** Planes for CHW, interleaved for HWC; mirrored when the sample is flipped. */
  @Override
  public RowLayout layout(int width, int channels) {
    return RowLayout.of(chw, mirror, width, channels);
  }

  @Override
  public void row(int y, int[] values) {
    int plane = width * height;
    if (tables != null) {
      for (int ch = 0; ch < channels; ch++) {
        float[] table = tables[ch];
        float[] f = floats;
        int to = ch * plane + y * width;
        int from = ch * width;
        for (int x = 0; x < width; x++) {
          f[to + x] = table[values[from + x]];
        }
      }
    } else if (chw) {
      for (int ch = 0; ch < channels; ch++) {
        int to = ch * plane + y * width;
        int from = ch * width;
        for (int x = 0; x < width; x++) {
          bytes[to + x] = (byte) values[from + x];
        }
      }
    } else {
      int length = width * channels;
      int to = y * length;
      for (int e = 0; e < length; e++) {
        bytes[to + e] = (byte) values[e];
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
