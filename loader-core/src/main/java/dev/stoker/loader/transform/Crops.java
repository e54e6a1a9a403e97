package dev.stoker.loader.transform;

import java.util.Arrays;

/** Copies a rectangle out of an image, and pads one with a constant: plain row copies. */
final class Crops {
  private Crops() {}

  /** Rows {@code [top, top+height)}, columns {@code [left, left+width)} of {@code in}. */
  static Image crop(Image in, int top, int left, int height, int width, Image out) {
    int c = in.channels;
    out.reset(width, height, c);
    int rowBytes = width * c;
    for (int y = 0; y < height; y++) {
      System.arraycopy(
          in.pixels, ((top + y) * in.width + left) * c, out.pixels, y * rowBytes, rowBytes);
    }
    return out;
  }

  /** {@code in} with borders of {@code fill} pixels: torchvision's {@code pad}, constant mode. */
  static Image pad(Image in, int left, int top, int right, int bottom, int fill, Image out) {
    int c = in.channels;
    int width = in.width + left + right;
    int height = in.height + top + bottom;
    out.reset(width, height, c);
    byte value = (byte) fill;
    int rowBytes = width * c;
    Arrays.fill(out.pixels, 0, top * rowBytes, value);
    for (int y = 0; y < in.height; y++) {
      int row = (top + y) * rowBytes;
      Arrays.fill(out.pixels, row, row + left * c, value);
      System.arraycopy(in.pixels, y * in.width * c, out.pixels, row + left * c, in.width * c);
      Arrays.fill(out.pixels, row + (left + in.width) * c, row + rowBytes, value);
    }
    Arrays.fill(out.pixels, (top + in.height) * rowBytes, height * rowBytes, value);
    return out;
  }

  /** Mirrors {@code image} left to right, in place. */
  static void flipHorizontal(Image image) {
    int c = image.channels;
    byte[] px = image.pixels;
    for (int y = 0; y < image.height; y++) {
      int lo = y * image.width * c;
      int hi = lo + (image.width - 1) * c;
      for (; lo < hi; lo += c, hi -= c) {
        for (int k = 0; k < c; k++) {
          byte t = px[lo + k];
          px[lo + k] = px[hi + k];
          px[hi + k] = t;
        }
      }
    }
  }
}
