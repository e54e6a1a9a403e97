package dev.stoker.loader.transform;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.PixelNormalizer;
import dev.stoker.loader.SampleWriter;
import java.io.Serializable;
import java.util.Arrays;

/**
 * The last step of a vision spec, writing the image into its batch field: {@code normalize}
 * (float32 CHW, torchvision's {@code ToTensor} then {@code Normalize}, through {@link
 * PixelNormalizer}'s tables), {@code toFloat} ({@code ToTensor} alone: x / 255, CHW) or {@code
 * toUint8} (CHW as {@code PILToTensor}, or HWC).
 */
final class PixelOutput implements Serializable {
  private static final long serialVersionUID = 1L;

  static final double[] IMAGENET_MEAN = {0.485, 0.456, 0.406};
  static final double[] IMAGENET_STD = {0.229, 0.224, 0.225};

  private final String text;
  private final boolean floats;
  private final boolean chw;
  private final double[] mean;
  private final double[] std;
  private transient PixelNormalizer normalizer;
  private transient float[][] tables;

  private PixelOutput(String text, boolean floats, boolean chw, double[] mean, double[] std) {
    this.text = text;
    this.floats = floats;
    this.chw = chw;
    this.mean = mean;
    this.std = std;
  }

  static PixelOutput normalize(double[] mean, double[] std) {
    PixelNormalizer.of(mean, std); // checks the values
    return new PixelOutput(
        "normalize(mean=" + Arrays.toString(mean) + ",std=" + Arrays.toString(std) + ")",
        true,
        true,
        mean.clone(),
        std.clone());
  }

  /** x / 255 in float32, CHW; {@code channels} zeros and ones make the table. */
  static PixelOutput toFloat(int channels) {
    double[] ones = new double[channels];
    Arrays.fill(ones, 1.0);
    return new PixelOutput("toFloat", true, true, new double[channels], ones);
  }

  static PixelOutput toUint8(boolean chw) {
    return new PixelOutput(chw ? "toUint8(chw)" : "toUint8(hwc)", false, chw, null, null);
  }

  String text() {
    return text;
  }

  /** The channels a normalization is for, or 0 for any. */
  int channels() {
    return floats ? mean.length : 0;
  }

  Field field(String name, int channels, int height, int width) {
    if (!floats) {
      return chw
          ? Field.of(name, DType.UINT8, channels, height, width)
          : Field.of(name, DType.UINT8, height, width, channels);
    }
    return Field.of(name, DType.FLOAT32, channels, height, width);
  }

  private PixelNormalizer normalizer() {
    PixelNormalizer n = normalizer;
    if (n == null) {
      n = PixelNormalizer.of(mean, std);
      normalizer = n;
    }
    return n;
  }

  /**
   * Whether {@link OutputRows} can write an image of {@code channels}: not when a normalization is
   * for another count ({@link #write} then gives the error).
   */
  boolean fuses(int channels) {
    return !floats || mean.length == channels;
  }

  /**
   * Readies {@code rows} to take this sample's pixels in this output's layout.
   *
   * @throws IllegalArgumentException if it does not {@link #fuses} images of {@code channels}
   */
  OutputRows rows(int channels, boolean mirror, OutputRows rows) {
    if (!fuses(channels)) {
      throw new IllegalArgumentException(
          text + " is for " + mean.length + " channels, not " + channels);
    }
    return rows.prepare(floats ? tables() : null, chw, mirror);
  }

  private float[][] tables() {
    float[][] t = tables;
    if (t == null) {
      PixelNormalizer n = normalizer();
      t = new float[n.channels()][256];
      for (int c = 0; c < t.length; c++) {
        for (int x = 0; x < 256; x++) {
          t[c][x] = n.value(c, x);
        }
      }
      tables = t;
    }
    return t;
  }

  void write(Image image, SampleWriter out, int field, Scratch scratch) {
    int n = image.bytes();
    byte[] px = image.pixels;
    if (chw && image.channels > 1) {
      px = planar(image, scratch.planar(n));
    }
    if (floats) {
      out.putNormalized(field, 0, px, 0, n, normalizer());
    } else {
      out.putBytes(field, 0, px, 0, n);
    }
  }

  /** HWC to CHW. */
  static byte[] planar(Image image, byte[] into) {
    int c = image.channels;
    int plane = image.width * image.height;
    byte[] px = image.pixels;
    if (c == 3) {
      for (int i = 0, p = 0; i < plane; i++, p += 3) {
        into[i] = px[p];
        into[plane + i] = px[p + 1];
        into[2 * plane + i] = px[p + 2];
      }
    } else {
      for (int k = 0; k < c; k++) {
        for (int i = 0; i < plane; i++) {
          into[k * plane + i] = px[i * c + k];
        }
      }
    }
    return into;
  }
}
