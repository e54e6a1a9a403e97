package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Broken values fail the sample with a message naming column, reason, length and remedy. */
class BadImageTest {
  private static byte[] bomb() {
    // A PNG header claiming 100000 x 100000 pixels, then IEND: 57 bytes.
    byte[] png = Arrays.copyOf(Goldens.bytes("grey.png"), 33);
    png[16] = 0;
    png[17] = 1;
    png[18] = (byte) 0x86;
    png[19] = (byte) 0xA0;
    System.arraycopy(png, 16, png, 20, 4);
    byte[] end = {0, 0, 0, 0, 'I', 'E', 'N', 'D', (byte) 0xAE, 0x42, 0x60, (byte) 0x82};
    byte[] all = Arrays.copyOf(png, 45);
    System.arraycopy(end, 0, all, 33, 12);
    return all;
  }

  private static boolean available(String decoder) {
    return switch (decoder) {
      case Decoders.OPENCV -> Decoders.openCvAvailable();
      case Decoders.LIBJPEG -> Decoders.libjpegAvailable();
      default -> true;
    };
  }

  private static void assertBad(String decoder, byte[] value, String reason) {
    if (!available(decoder)) {
      return;
    }
    VisionTransformHarness t =
        new VisionTransformHarness("decode(rgb,decoder=" + decoder + ")|centerCrop(8)");
    assertThatThrownBy(() -> t.run(value, 1))
        .isInstanceOf(BadImageException.class)
        .hasMessageContaining("column 'image': ")
        .hasMessageContaining(reason)
        .hasMessageContaining("a value of " + value.length + " bytes")
        .hasMessageContaining("remedy: ");
  }

  @ParameterizedTest
  @ValueSource(strings = {Decoders.IMAGEIO, Decoders.OPENCV, Decoders.LIBJPEG})
  void shouldRefuseBrokenValues(String decoder) {
    byte[] jpeg = Goldens.bytes("photo_q90.jpg");
    byte[] png = Goldens.bytes("photo.png");
    assertBad(decoder, new byte[0], "empty value");
    assertBad(decoder, "hello, world".getBytes(), "not a JPEG or PNG (starts with 68656c6c");
    assertBad(decoder, Arrays.copyOf(jpeg, jpeg.length / 2), "truncated JPEG");
    assertBad(decoder, Arrays.copyOf(png, png.length - 100), "truncated PNG");
    assertBad(decoder, Arrays.copyOf(jpeg, 40), "JPEG");
    assertBad(decoder, bomb(), "100000 x 100000 = 10000000000 pixels exceeds maxPixels 89478485");
    byte[] garbled = jpeg.clone();
    Arrays.fill(garbled, 200, garbled.length - 2, (byte) 0x55); // entropy data and tables gone
    byte[] garbledPng = png.clone();
    Arrays.fill(garbledPng, 60, garbledPng.length - 12, (byte) 0x55);
    String pngDecoder =
        !decoder.equals(Decoders.LIBJPEG)
            ? decoder
            : Decoders.openCvAvailable() ? Decoders.OPENCV : Decoders.IMAGEIO;
    assertBad(decoder, garbledPng, pngDecoder + " could not decode it");
    if (decoder.equals(Decoders.LIBJPEG)) { // the others decode it to noise
      assertBad(
          decoder,
          garbled,
          "libjpeg could not decode it: java.lang.IllegalArgumentException: libjpeg: ");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {Decoders.IMAGEIO, Decoders.OPENCV, Decoders.LIBJPEG})
  void shouldCheckThePixelBoundFromTheHeader(String decoder) throws Throwable {
    if (!available(decoder)) {
      return;
    }
    byte[] png = Goldens.bytes("photo.png"); // 160 x 120 = 19200 pixels
    VisionTransformHarness small =
        new VisionTransformHarness(
            "decode(rgb,maxPixels=19199,decoder=" + decoder + ")|centerCrop(8)");
    assertThatThrownBy(() -> small.run(png, 1))
        .hasMessageContaining("exceeds maxPixels 19199")
        .hasMessageContaining("raise decode(maxPixels=N)");
    VisionTransformHarness enough =
        new VisionTransformHarness(
            "decode(rgb,maxPixels=19200,decoder=" + decoder + ")|centerCrop(8)");
    assertThat(enough.run(png, 1)).hasSize(8 * 8 * 3);
  }
}
