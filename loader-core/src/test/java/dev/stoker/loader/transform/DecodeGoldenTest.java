package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both decoders against PIL's decode and {@code convert}: PNGs equal; JPEG within the stated
 * tolerance (ImageIO's libjpeg 6b differs from PIL's libjpeg-turbo in rounding). The reduced-scale
 * decode against torchvision with none, within a looser tolerance.
 */
class DecodeGoldenTest {
  private static Supplier<ImageDecoder> decoder(String name) {
    if (name.equals(Decoders.OPENCV)) {
      assumeThat(Decoders.openCvAvailable()).as("OpenCV loads here").isTrue();
    }
    return Decoders.factory(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {Decoders.IMAGEIO, Decoders.OPENCV})
  void shouldDecodePngsAsPil(String name) throws Exception {
    ImageDecoder d = decoder(name).get();
    Goldens.assertClose("decode_photo_png_rgb", Goldens.decode(d, "photo.png", 3), 0, 1.0);
    Goldens.assertClose("decode_photo_png_l", Goldens.decode(d, "photo.png", 1), 0, 1.0);
    Goldens.assertClose("decode_grey_png_l", Goldens.decode(d, "grey.png", 1), 0, 1.0);
    Goldens.assertClose("decode_grey_png_rgb", Goldens.decode(d, "grey.png", 3), 0, 1.0);
    Goldens.assertClose("decode_rgba_png_rgb", Goldens.decode(d, "rgba.png", 3), 0, 1.0);
    Goldens.assertClose("decode_palette_png_rgb", Goldens.decode(d, "palette.png", 3), 0, 1.0);
  }

  @ParameterizedTest
  @ValueSource(strings = {Decoders.IMAGEIO, Decoders.OPENCV})
  void shouldDecodeJpegCloseToPil(String name) throws Exception {
    ImageDecoder d = decoder(name).get();
    double exact =
        Goldens.assertClose("decode_photo_jpg_rgb", Goldens.decode(d, "photo_q90.jpg", 3), 2, 0.95);
    System.out.printf("%s JPEG decode: %.4f of values equal to PIL's%n", name, exact);
  }

  @ParameterizedTest
  @ValueSource(strings = {Decoders.IMAGEIO, Decoders.OPENCV})
  void shouldStayCloseToTorchvisionWithReducedDecode(String name) throws Exception {
    assumeThat(name).isEqualTo(Decoders.OPENCV); // ImageIO has no reduced decode
    ImageDecoder d = decoder(name).get();
    byte[] data = Goldens.bytes("big_q90.jpg");
    ImageHeader header = ImageHeader.read(data, data.length);
    Resampler resampler = new Resampler();
    int[][] cases = {{20, 30, 300, 400, 64, 64}, {100, 50, 150, 120, 32, 32}};
    for (int[] c : cases) {
      RandomResizedCrop op = new RandomResizedCrop(c[4], c[5], 0.08, 1, 0.75, 4 / 3.0);
      CropBox box = new CropBox(c[0], c[1], c[2], c[3]);
      int scale = op.reduction(box);
      assertThat(scale).isGreaterThan(1);
      Image reduced = new Image();
      d.decode(data, data.length, header, scale, reduced);
      Image out = op.resize(reduced, box, scale, new Image(), resampler);
      String golden =
          String.format(
              "big_resized_crop_%d_%d_%d_%d_to_%dx%d", c[0], c[1], c[2], c[3], c[4], c[5]);
      double exact = Goldens.assertClose(golden, out, 24, 0.10);
      System.out.printf(
          "draft 1/%d %s: %.3f equal, mean |diff| %.2f%n",
          scale, golden, exact, meanDiff(Goldens.bytes(golden + ".u8"), out.copyPixels()));
      Image full = new Image();
      d.decode(data, data.length, header, 1, full);
      Goldens.assertClose(golden, op.resize(full, box, 1, new Image(), resampler), 2, 0.95);
    }
    Resize resize = Resize.shorterSide(48);
    Image reduced = new Image();
    d.decode(data, data.length, header, 4, reduced);
    Image out =
        resize.resizeReduced(reduced, header.height(), header.width(), 4, new Image(), resampler);
    double exact = Goldens.assertClose("big_resize_48", out, 24, 0.10);
    System.out.printf(
        "draft 1/4 resize(48): %.3f equal, mean |diff| %.2f%n",
        exact, meanDiff(Goldens.bytes("big_resize_48.u8"), out.copyPixels()));
  }

  private static double meanDiff(byte[] a, byte[] b) {
    long sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += Math.abs((a[i] & 0xff) - (b[i] & 0xff));
    }
    return (double) sum / a.length;
  }
}
