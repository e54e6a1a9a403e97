package dev.stoker.loader.transform;

/**
 * Decodes one encoded image into an {@link Image} with its own colours: one channel for a grey
 * source, three (RGB) for any other, alpha dropped. One instance per worker thread; it may keep
 * scratch memory between calls.
 */
interface ImageDecoder {
  /** The decoder's name in messages and in {@code decode(decoder=...)}. */
  String name();

  /** The name of the decoder that decodes images of {@code format}, for messages. */
  default String name(ImageFormat format) {
    return name();
  }

  /** Whether it decodes a JPEG at 1/2, 1/4 or 1/8 scale in its DCT (as libjpeg does). */
  boolean reducesJpeg();

  /**
   * Decodes {@code length} bytes of {@code data}, whose header is {@code header}, into {@code out};
   * at {@code 1/scale} of the full size when {@code scale > 1} (a JPEG, and only if {@link
   * #reducesJpeg}), rounding up as libjpeg does.
   *
   * @throws Exception if the decoder refuses the data
   */
  void decode(byte[] data, int length, ImageHeader header, int scale, Image out) throws Exception;

  /**
   * Like {@link #decode}, but may decode only {@code region} (in the coordinates of the image at
   * {@code 1/scale}) into {@code out}, which is then {@code region}'s size with the pixels a whole
   * decode has there. The default decodes the whole image.
   *
   * @return whether {@code out} holds only the region; false when it holds the whole image
   * @throws Exception if the decoder refuses the data
   */
  default boolean decodeRegion(
      byte[] data, int length, ImageHeader header, int scale, CropBox region, Image out)
      throws Exception {
    decode(data, length, header, scale, out);
    return false;
  }
}
