package dev.stoker.loader.transform;

/** The reduced-scale JPEG decode PIL's {@code Image.draft} chooses. */
final class Draft {
  private Draft() {}

  /**
   * The largest of 8, 4, 2, 1 that is at most {@code min(widthRatio, heightRatio)}, each ratio
   * being {@code source // target} along its axis (PIL's {@code draft} rule).
   */
  static int reduction(int widthRatio, int heightRatio) {
    int ratio = Math.min(widthRatio, heightRatio);
    for (int scale = 8; scale > 1; scale >>= 1) {
      if (ratio >= scale) {
        return scale;
      }
    }
    return 1;
  }

  /** A side's length decoded at {@code 1/scale}: rounded up, as libjpeg does. */
  static int reduced(int length, int scale) {
    return (length + scale - 1) / scale;
  }
}
