package dev.stoker.loader.transform;

import java.util.random.RandomGenerator;

/**
 * torchvision's {@code RandomResizedCrop(size, scale, ratio)}, bilinear with antialias: a box of
 * random area and aspect ratio ({@code get_params}: ten tries, then the largest central box within
 * the ratio range), cropped and resized to {@code height x width}. The box is chosen on the
 * full-size image, so a reduced-scale decode changes nothing but the resampling's input.
 */
record RandomResizedCrop(
    int height, int width, double minScale, double maxScale, double minRatio, double maxRatio)
    implements ImageOp {
  private static final int ATTEMPTS = 10;

  @Override
  public String text() {
    return String.format(
        "randomResizedCrop(%d,%d,scale=%s:%s,ratio=%s:%s)",
        height, width, minScale, maxScale, minRatio, maxRatio);
  }

  @Override
  public int[] outputSize(int[] size) {
    return new int[] {height, width};
  }

  /** The box on an image of {@code imageHeight x imageWidth}: {@code get_params}. */
  CropBox choose(int imageHeight, int imageWidth, RandomGenerator random) {
    double area = (double) imageHeight * imageWidth;
    double logMin = Math.log(minRatio);
    double logMax = Math.log(maxRatio);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      double targetArea = area * uniform(random, minScale, maxScale);
      double aspect = Math.exp(uniform(random, logMin, logMax));
      int w = (int) Math.rint(Math.sqrt(targetArea * aspect));
      int h = (int) Math.rint(Math.sqrt(targetArea / aspect));
      if (w > 0 && w <= imageWidth && h > 0 && h <= imageHeight) {
        int top = random.nextInt(imageHeight - h + 1);
        int left = random.nextInt(imageWidth - w + 1);
        return new CropBox(top, left, h, w);
      }
    }
    double inRatio = (double) imageWidth / imageHeight;
    int w;
    int h;
    if (inRatio < minRatio) {
      w = imageWidth;
      h = (int) Math.rint(w / minRatio);
    } else if (inRatio > maxRatio) {
      h = imageHeight;
      w = (int) Math.rint(h * maxRatio);
    } else {
      w = imageWidth;
      h = imageHeight;
    }
    return new CropBox((imageHeight - h) / 2, (imageWidth - w) / 2, h, w);
  }

  private static double uniform(RandomGenerator random, double lo, double hi) {
    return lo + (hi - lo) * random.nextDouble();
  }

  /** The largest reduction of 1, 2, 4, 8 that keeps {@code box} at least the output's size. */
  int reduction(CropBox box) {
    return Draft.reduction(box.width() / width, box.height() / height);
  }

  /**
   * The rectangle of an image decoded at {@code 1/scale} ({@code reducedWidth x reducedHeight})
   * that {@link #resize(Image, CropBox, int, Resampler.Rows, Resampler)} reads for {@code box}.
   */
  static CropBox region(CropBox box, int scale, int reducedWidth, int reducedHeight) {
    if (scale == 1) {
      return box;
    }
    int left = box.left() / scale;
    int top = box.top() / scale;
    int right = Math.min(reducedWidth, (box.left() + box.width() + scale - 1) / scale);
    int bottom = Math.min(reducedHeight, (box.top() + box.height() + scale - 1) / scale);
    return new CropBox(top, left, bottom - top, right - left);
  }

  /**
   * {@code box} on the image that is only {@link #region}'s pixels: the same resize reads the same
   * pixels there.
   */
  static CropBox within(CropBox box, CropBox region, int scale) {
    return new CropBox(
        box.top() - region.top() * scale,
        box.left() - region.left() * scale,
        box.height(),
        box.width());
  }

  @Override
  public Image apply(Image in, Image spare, RandomGenerator random, Scratch scratch) {
    CropBox box = choose(in.height, in.width, random);
    return resize(in, box, 1, spare, scratch.resampler);
  }

  /**
   * Crops {@code box} (full-size coordinates) out of {@code in}, a decode at {@code 1/scale}, and
   * resizes it to the output size. At scale 1 this is torchvision's {@code resized_crop}: the crop
   * is the filter's bound. Reduced, the box falls between pixels: the filter reads the reduced
   * pixels the box touches.
   */
  Image resize(Image in, CropBox box, int scale, Image out, Resampler resampler) {
    resize(in, box, scale, resampler.into(out), resampler);
    return out;
  }

  /** {@link #resize(Image, CropBox, int, Image, Resampler)} handing the rows to {@code out}. */
  void resize(Image in, CropBox box, int scale, Resampler.Rows out, Resampler resampler) {
    if (scale == 1) {
      resampler.resample(
          in,
          box.left(),
          box.top(),
          box.left() + box.width(),
          box.top() + box.height(),
          0,
          0,
          box.width(),
          box.height(),
          width,
          height,
          out);
      return;
    }
    double x0 = (double) box.left() / scale;
    double y0 = (double) box.top() / scale;
    double x1 = (double) (box.left() + box.width()) / scale;
    double y1 = (double) (box.top() + box.height()) / scale;
    int rx0 = (int) Math.floor(x0);
    int ry0 = (int) Math.floor(y0);
    int rx1 = Math.min(in.width, (int) Math.ceil(x1));
    int ry1 = Math.min(in.height, (int) Math.ceil(y1));
    resampler.resample(
        in, rx0, ry0, rx1, ry1, x0 - rx0, y0 - ry0, x1 - rx0, y1 - ry0, width, height, out);
  }
}
