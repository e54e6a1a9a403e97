package dev.stoker.loader.transform;

import java.util.Arrays;

/**
 * An 8-bit image being transformed: width, height, channels (1 grey, 3 RGB) and its pixels,
 * interleaved row by row (HWC), in a reusable array that grows and never shrinks. Each worker
 * thread owns its own; not thread-safe.
 */
final class Image {
  int width;
  int height;
  int channels;
  byte[] pixels = new byte[0];

  /** Makes this a {@code width x height x channels} image of undefined pixels. */
  Image reset(int width, int height, int channels) {
    this.width = width;
    this.height = height;
    this.channels = channels;
    int bytes = Math.multiplyExact(Math.multiplyExact(width, height), channels);
    if (pixels.length < bytes) {
      pixels =
          new byte[Math.max(bytes, (int) Math.min(Integer.MAX_VALUE - 64, pixels.length * 3L / 2))];
    }
    return this;
  }

  int bytes() {
    return width * height * channels;
  }

  /** The pixels as a new array of exactly {@link #bytes()}: for tests. */
  byte[] copyPixels() {
    return Arrays.copyOf(pixels, bytes());
  }

  @Override
  public String toString() {
    return width + "x" + height + "x" + channels;
  }
}
