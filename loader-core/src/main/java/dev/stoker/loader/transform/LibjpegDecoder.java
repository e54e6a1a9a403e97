package dev.stoker.loader.transform;

import java.util.function.Supplier;

/**
 * JPEGs through {@link NativeJpeg} (the system's libjpeg-turbo), decoding only the rectangle a
 * random resized crop needs when asked for one; PNGs through the decoder {@code others} makes, made
 * on first use (loading OpenCV takes half a second that a JPEG-only dataset need not spend).
 */
final class LibjpegDecoder implements ImageDecoder {
  private final Supplier<ImageDecoder> makeOthers;
  private ImageDecoder others;

  LibjpegDecoder(Supplier<ImageDecoder> others) {
    this.makeOthers = others;
  }

  private ImageDecoder others() {
    if (others == null) {
      others = makeOthers.get();
    }
    return others;
  }

  @Override
  public String name() {
    return Decoders.LIBJPEG;
  }

  @Override
  public String name(ImageFormat format) {
    return format == ImageFormat.JPEG ? name() : others().name();
  }

  @Override
  public boolean reducesJpeg() {
    return true;
  }

  @Override
  public void decode(byte[] data, int length, ImageHeader header, int scale, Image out)
      throws Exception {
    if (header.format() != ImageFormat.JPEG) {
      others().decode(data, length, header, scale, out);
      return;
    }
    CropBox whole =
        new CropBox(
            0, 0, Draft.reduced(header.height(), scale), Draft.reduced(header.width(), scale));
    decodeRegion(data, length, header, scale, whole, out);
  }

  @Override
  public boolean decodeRegion(
      byte[] data, int length, ImageHeader header, int scale, CropBox region, Image out)
      throws Exception {
    if (header.format() != ImageFormat.JPEG) {
      others().decode(data, length, header, scale, out);
      return false;
    }
    int channels = header.grey() ? 1 : 3;
    out.reset(region.width(), region.height(), channels);
    NativeJpeg.decode(
        data,
        length,
        scale,
        region.left(),
        region.top(),
        region.width(),
        region.height(),
        channels,
        out.pixels);
    return true;
  }
}
