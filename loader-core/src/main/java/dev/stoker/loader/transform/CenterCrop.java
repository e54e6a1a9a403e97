package dev.stoker.loader.transform;

import java.util.random.RandomGenerator;

/**
 * torchvision's {@code CenterCrop}: the middle {@code height x width}, its offset rounded half to
 * even as Python's {@code round}; an image smaller than the crop is first padded with zeros.
 */
record CenterCrop(int height, int width) implements ImageOp {
  @Override
  public String text() {
    return "centerCrop(" + height + "," + width + ")";
  }

  @Override
  public int[] outputSize(int[] size) {
    return new int[] {height, width};
  }

  @Override
  public Image apply(Image in, Image spare, RandomGenerator random, Scratch scratch) {
    if (width > in.width || height > in.height) {
      int padX = Math.max(0, width - in.width);
      int padY = Math.max(0, height - in.height);
      Crops.pad(in, padX / 2, padY / 2, (padX + 1) / 2, (padY + 1) / 2, 0, spare);
      if (spare.width == width && spare.height == height) {
        return spare;
      }
      Image padded = spare;
      spare = in;
      in = padded;
    }
    int top = (int) Math.rint((in.height - height) / 2.0);
    int left = (int) Math.rint((in.width - width) / 2.0);
    return Crops.crop(in, top, left, height, width, spare);
  }
}
