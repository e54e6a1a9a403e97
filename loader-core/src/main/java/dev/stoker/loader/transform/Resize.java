package dev.stoker.loader.transform;

import java.util.random.RandomGenerator;

/**
 * torchvision's {@code Resize}, bilinear with antialias (as on a PIL image): the shorter side to
 * {@code shorter} keeping the aspect ratio ({@code Resize(int)}), or exactly {@code height x
 * width}.
 */
record Resize(int shorter, int height, int width) implements ImageOp {
  static Resize shorterSide(int size) {
    return new Resize(size, 0, 0);
  }

  static Resize exact(int height, int width) {
    return new Resize(0, height, width);
  }

  @Override
  public String text() {
    return shorter > 0 ? "resize(" + shorter + ")" : "resize(" + height + "," + width + ")";
  }

  @Override
  public int[] outputSize(int[] size) {
    if (shorter == 0) {
      return new int[] {height, width};
    }
    return size == null ? null : target(size[0], size[1]);
  }

  /** torchvision's {@code _compute_resized_output_size}: {@code {height, width}}. */
  int[] target(int inHeight, int inWidth) {
    if (shorter == 0) {
      return new int[] {height, width};
    }
    boolean wide = inWidth > inHeight;
    int small = wide ? inHeight : inWidth;
    int large = wide ? inWidth : inHeight;
    int longer = (int) ((double) shorter * large / small);
    return wide ? new int[] {shorter, longer} : new int[] {longer, shorter};
  }

  @Override
  public Image apply(Image in, Image spare, RandomGenerator random, Scratch scratch) {
    return resizeReduced(in, in.height, in.width, 1, spare, scratch.resampler);
  }

  /**
   * Resizes {@code in}, a decode at {@code 1/scale} of a {@code fullHeight x fullWidth} image, to
   * the size the full image would get.
   */
  Image resizeReduced(
      Image in, int fullHeight, int fullWidth, int scale, Image out, Resampler resampler) {
    int[] size = target(fullHeight, fullWidth);
    if (scale == 1 && size[0] == in.height && size[1] == in.width) {
      return in;
    }
    resizeReduced(in, fullHeight, fullWidth, scale, resampler.into(out), resampler);
    return out;
  }

  /**
   * {@link #resizeReduced(Image, int, int, int, Image, Resampler)} handing the rows to {@code out},
   * copied through when the size is already right.
   */
  void resizeReduced(
      Image in, int fullHeight, int fullWidth, int scale, Resampler.Rows out, Resampler resampler) {
    int[] size = target(fullHeight, fullWidth);
    resampler.resample(
        in,
        0,
        0,
        in.width,
        in.height,
        0,
        0,
        (double) fullWidth / scale,
        (double) fullHeight / scale,
        size[1],
        size[0],
        out);
  }
}
