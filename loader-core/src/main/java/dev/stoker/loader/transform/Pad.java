package dev.stoker.loader.transform;

import java.util.random.RandomGenerator;

/**
 * torchvision's {@code Pad(n, fill)} in constant mode: {@code n} pixels of {@code fill} all round.
 */
record Pad(int padding, int fill) implements ImageOp {
  @Override
  public String text() {
    return "pad(" + padding + ",fill=" + fill + ")";
  }

  @Override
  public int[] outputSize(int[] size) {
    return size == null ? null : new int[] {size[0] + 2 * padding, size[1] + 2 * padding};
  }

  @Override
  public Image apply(Image in, Image spare, RandomGenerator random, Scratch scratch) {
    return Crops.pad(in, padding, padding, padding, padding, fill, spare);
  }
}
