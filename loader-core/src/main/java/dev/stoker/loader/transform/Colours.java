package dev.stoker.loader.transform;

/** Grey to RGB and back, as PIL's {@code convert("RGB")} and {@code convert("L")} compute them. */
final class Colours {
  private Colours() {}

  /**
   * {@code image} with {@code channels} channels: itself, converted in place (RGB to grey, PIL's
   * ITU-R 601-2 luma in 16-bit fixed point), or {@code spare} (grey to RGB, the value thrice).
   */
  static Image convert(Image image, int channels, Image spare) {
    if (image.channels == channels) {
      return image;
    }
    int plane = image.width * image.height;
    byte[] px = image.pixels;
    if (channels == 1) {
      for (int i = 0, p = 0; i < plane; i++, p += 3) {
        int l = (px[p] & 0xff) * 19595 + (px[p + 1] & 0xff) * 38470 + (px[p + 2] & 0xff) * 7471;
        px[i] = (byte) ((l + 0x8000) >>> 16);
      }
      image.channels = 1;
      return image;
    }
    spare.reset(image.width, image.height, 3);
    byte[] out = spare.pixels;
    for (int i = 0, p = 0; i < plane; i++, p += 3) {
      byte v = px[i];
      out[p] = v;
      out[p + 1] = v;
      out[p + 2] = v;
    }
    return spare;
  }
}
