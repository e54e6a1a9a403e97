package dev.stoker.loader.transform;

import java.util.random.RandomGenerator;

/**
 * torchvision's {@code RandomCrop(size, padding, fill)}: pads, then crops {@code height x width} at
 * a uniformly drawn place (top drawn first, then left, as {@code get_params} does).
 */
record RandomCrop(int height, int width, int padding, int fill) implements ImageOp {
  @Override
  public String text() {
    return "randomCrop(" + height + "," + width + ",padding=" + padding + ",fill=" + fill + ")";
  }

  @Override
  public int[] outputSize(int[] size) {
    return new int[] {height, width};
  }

  /** The crop's top-left on an image of {@code h x w} (after padding): {@code {top, left}}. */
  int[] choose(int h, int w, RandomGenerator random) {
    if (h < height || w < width) {
      throw new IllegalArgumentException(
          String.format(
              "randomCrop: an image of %d x %d (after padding %d) is smaller than the crop %d x %d "
                  + "(expected: resize or pad before it)",
              h, w, padding, height, width));
    }
    if (h == height && w == width) {
      return new int[] {0, 0};
    }
    int top = random.nextInt(h - height + 1);
    int left = random.nextInt(w - width + 1);
    return new int[] {top, left};
  }

  @Override
  public Image apply(Image in, Image spare, RandomGenerator random, Scratch scratch) {
    if (padding > 0) {
      Crops.pad(in, padding, padding, padding, padding, fill, spare);
      Image padded = spare;
      spare = in;
      in = padded;
    }
    int[] at = choose(in.height, in.width, random);
    return Crops.crop(in, at[0], at[1], height, width, spare);
  }
}
