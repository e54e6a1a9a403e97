package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The inputs and torchvision outputs that src/test/python/make_image_goldens.py wrote. */
final class Goldens {
  private Goldens() {}

  static byte[] bytes(String name) {
    try (InputStream in = Goldens.class.getResourceAsStream("/images/" + name)) {
      if (in == null) {
        throw new IllegalStateException("no test resource images/" + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static float[] floats(String name) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes(name)).order(ByteOrder.LITTLE_ENDIAN);
    float[] values = new float[buffer.remaining() / 4];
    buffer.asFloatBuffer().get(values);
    return values;
  }

  /** Decodes an input with {@code decoder} at full scale, converted to {@code channels}. */
  static Image decode(ImageDecoder decoder, String name, int channels) throws Exception {
    byte[] data = bytes(name);
    ImageHeader header = ImageHeader.read(data, data.length);
    Image image = new Image();
    decoder.decode(data, data.length, header, 1, image);
    return Colours.convert(image, channels, new Image());
  }

  /**
   * Asserts {@code actual} equals the golden {@code name}: every value within {@code maxDiff}
   * levels and at least {@code minExact} of them equal. Returns the fraction equal.
   */
  static double assertClose(String name, Image actual, int maxDiff, double minExact) {
    return assertClose(name, bytes(name + ".u8"), actual.copyPixels(), maxDiff, minExact);
  }

  static double assertClose(
      String name, byte[] expected, byte[] actual, int maxDiff, double minExact) {
    assertThat(actual.length).as("%s: values", name).isEqualTo(expected.length);
    int exact = 0;
    int worst = 0;
    for (int i = 0; i < expected.length; i++) {
      int d = Math.abs((expected[i] & 0xff) - (actual[i] & 0xff));
      worst = Math.max(worst, d);
      if (d == 0) {
        exact++;
      }
    }
    double fraction = (double) exact / expected.length;
    assertThat(worst)
        .as("%s: largest difference (%.4f equal)", name, fraction)
        .isLessThanOrEqualTo(maxDiff);
    assertThat(fraction)
        .as("%s: fraction equal (worst %d)", name, worst)
        .isGreaterThanOrEqualTo(minExact);
    return fraction;
  }
}
