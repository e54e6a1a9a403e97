package dev.stoker.loader.transform;

import java.util.random.RandomGenerator;

/**
 * torchvision's {@code RandomHorizontalFlip(p)}: mirrors the image when a uniform draw is below p.
 */
record HorizontalFlip(double p) implements ImageOp {
  @Override
  public String text() {
    return "hflip(" + p + ")";
  }

  @Override
  public int[] outputSize(int[] size) {
    return size;
  }

  /** Draws this sample's decision: one double from {@code random}. */
  boolean flips(RandomGenerator random) {
    return random.nextDouble() < p;
  }

  @Override
  public Image apply(Image in, Image spare, RandomGenerator random, Scratch scratch) {
    if (flips(random)) {
      Crops.flipHorizontal(in);
    }
    return in;
  }
}
