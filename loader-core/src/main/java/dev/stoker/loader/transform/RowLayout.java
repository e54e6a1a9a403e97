package dev.stoker.loader.transform;

/**
 * Where the resampler puts each value of an output row: pixel {@code x}'s channel {@code ch} at
 * {@code first + x * pixelStep + ch * channelStep}. Channels interleaved ({@code [W, C]}) or in
 * planes ({@code [C, W]}), pixels left to right or mirrored; the passes then write each value once
 * where the sample's output wants it, and a flip or a reorder to planes costs no pass of its own.
 */
record RowLayout(int first, int pixelStep, int channelStep) {
  /** Interleaved, left to right: as an image's rows. */
  static RowLayout interleaved(int width, int channels) {
    return of(false, false, width, channels);
  }

  /**
   * The layout of a row of {@code width} pixels of {@code channels}.
   *
   * @param planar channel planes ({@code [C, W]}) rather than interleaved ({@code [W, C]})
   * @param mirrored pixels right to left
   */
  static RowLayout of(boolean planar, boolean mirrored, int width, int channels) {
    int pixelStep = planar ? 1 : channels;
    int channelStep = planar ? width : 1;
    return mirrored
        ? new RowLayout((width - 1) * pixelStep, -pixelStep, channelStep)
        : new RowLayout(0, pixelStep, channelStep);
  }

  /**
   * Whether each value of a row of {@code channels} goes where it stands in an interleaved row,
   * left to right: the row can then be copied straight.
   */
  boolean inInputOrder(int channels) {
    return first == 0 && pixelStep == channels && (channels == 1 || channelStep == 1);
  }

  /** Where pixel {@code x}'s channel {@code ch} goes. */
  int at(int x, int ch) {
    return first + x * pixelStep + ch * channelStep;
  }
}
