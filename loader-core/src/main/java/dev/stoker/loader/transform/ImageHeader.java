package dev.stoker.loader.transform;

/**
 * What an encoded image's header says, read without decoding a pixel: the format, the size, and
 * whether its colours are grey. Also checks that the file is whole (a JPEG ends with its
 * end-of-image marker, a PNG with its IEND chunk), since both decoders fill a truncated image with
 * grey rather than fail, where PIL refuses it.
 *
 * @param grey whether the source has one colour component (grey JPEG, grey or grey+alpha PNG)
 */
record ImageHeader(ImageFormat format, int width, int height, boolean grey) {
  private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  private static final byte[] PNG_END = {
    0, 0, 0, 0, 'I', 'E', 'N', 'D', (byte) 0xAE, 0x42, 0x60, (byte) 0x82
  };

  /** How far from the end a JPEG's end-of-image marker may be (some writers pad after it). */
  private static final int JPEG_TAIL = 64;

  long pixels() {
    return (long) width * height;
  }

  /**
   * The header of the {@code length} bytes of {@code data}.
   *
   * @throws IllegalArgumentException saying what is wrong (the caller adds the column and remedy)
   */
  static ImageHeader read(byte[] data, int length) {
    if (length == 0) {
      throw new IllegalArgumentException("empty value (0 bytes)");
    }
    if (length >= 2 && (data[0] & 0xff) == 0xFF && (data[1] & 0xff) == 0xD8) {
      return readJpeg(data, length);
    }
    if (length >= 8 && startsWith(data, PNG_SIGNATURE)) {
      return readPng(data, length);
    }
    throw new IllegalArgumentException(
        String.format("not a JPEG or PNG (starts with %s)", hex(data, Math.min(length, 8))));
  }

  private static ImageHeader readPng(byte[] data, int length) {
    if (length < 8 + 25 + 12) {
      throw new IllegalArgumentException("truncated PNG (too short for its header)");
    }
    if (int32(data, 12) != 0x49484452) { // IHDR
      throw new IllegalArgumentException("not a PNG (first chunk is not IHDR)");
    }
    long width = int32(data, 16) & 0xffffffffL;
    long height = int32(data, 20) & 0xffffffffL;
    int colourType = data[25] & 0xff;
    if (!endsWith(data, length, PNG_END)) {
      throw new IllegalArgumentException("truncated PNG (no IEND chunk at its end)");
    }
    if (colourType != 0
        && colourType != 2
        && colourType != 3
        && colourType != 4
        && colourType != 6) {
      throw new IllegalArgumentException("PNG of unknown colour type " + colourType);
    }
    return sized(ImageFormat.PNG, width, height, colourType == 0 || colourType == 4);
  }

  private static ImageHeader readJpeg(byte[] data, int length) {
    int at = 2;
    while (at + 4 <= length) {
      if ((data[at] & 0xff) != 0xFF) {
        throw new IllegalArgumentException("corrupt JPEG (no marker at byte " + at + ")");
      }
      int marker = data[at + 1] & 0xff;
      if (marker == 0xFF) {
        at++; // fill byte
        continue;
      }
      if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
        at += 2;
        continue;
      }
      int segment = ((data[at + 2] & 0xff) << 8) | (data[at + 3] & 0xff);
      boolean frame =
          marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
      if (frame) {
        if (at + 10 > length) {
          break;
        }
        int height = ((data[at + 5] & 0xff) << 8) | (data[at + 6] & 0xff);
        int width = ((data[at + 7] & 0xff) << 8) | (data[at + 8] & 0xff);
        int components = data[at + 9] & 0xff;
        if (!hasJpegEnd(data, length)) {
          throw new IllegalArgumentException("truncated JPEG (no end-of-image marker at its end)");
        }
        if (components != 1 && components != 3) {
          throw new IllegalArgumentException(
              "JPEG with " + components + " colour components (expected: 1 grey or 3 YCbCr/RGB)");
        }
        return sized(ImageFormat.JPEG, width, height, components == 1);
      }
      if (marker == 0xD9 || marker == 0xDA) {
        break; // image data before any frame header
      }
      at += 2 + segment;
    }
    throw new IllegalArgumentException("truncated or corrupt JPEG (no frame header)");
  }

  private static ImageHeader sized(ImageFormat format, long width, long height, boolean grey) {
    if (width <= 0 || height <= 0 || width > Integer.MAX_VALUE || height > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          String.format("%s of %d x %d pixels (expected: a positive size)", format, width, height));
    }
    return new ImageHeader(format, (int) width, (int) height, grey);
  }

  private static boolean hasJpegEnd(byte[] data, int length) {
    for (int i = length - 2; i >= Math.max(0, length - JPEG_TAIL); i--) {
      if ((data[i] & 0xff) == 0xFF && (data[i + 1] & 0xff) == 0xD9) {
        return true;
      }
    }
    return false;
  }

  private static int int32(byte[] data, int at) {
    return ((data[at] & 0xff) << 24)
        | ((data[at + 1] & 0xff) << 16)
        | ((data[at + 2] & 0xff) << 8)
        | (data[at + 3] & 0xff);
  }

  private static boolean startsWith(byte[] data, byte[] prefix) {
    for (int i = 0; i < prefix.length; i++) {
      if (data[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean endsWith(byte[] data, int length, byte[] suffix) {
    int from = length - suffix.length;
    for (int i = 0; i < suffix.length; i++) {
      if (data[from + i] != suffix[i]) {
        return false;
      }
    }
    return true;
  }

  private static String hex(byte[] data, int n) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < n; i++) {
      text.append(String.format("%02x", data[i] & 0xff));
    }
    return text.toString();
  }
}
