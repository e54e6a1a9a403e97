package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.PixelNormalizer;
import org.junit.jupiter.api.Test;

/** Each op on PIL-decoded pixels against torchvision 0.14's output: equal, bit for bit. */
class ImageOpsGoldenTest {
  private final Scratch scratch = new Scratch(ImageIoDecoder::new);

  private Image photo() throws Exception {
    Image image = Goldens.decode(new ImageIoDecoder(), "photo.png", 3);
    Goldens.assertClose("decode_photo_png_rgb", image, 0, 1.0);
    return image;
  }

  private Image apply(ImageOp op, Image in) {
    return op.apply(in, new Image(), null, scratch);
  }

  @Test
  void shouldResizeAsPillowBilinear() throws Exception {
    Goldens.assertClose("resize_64", apply(Resize.shorterSide(64), photo()), 0, 1.0);
    Goldens.assertClose("resize_37x50", apply(Resize.exact(37, 50), photo()), 0, 1.0);
    Goldens.assertClose("resize_150x170", apply(Resize.exact(150, 170), photo()), 0, 1.0);
    Goldens.assertClose("resize_13x7", apply(Resize.exact(13, 7), photo()), 0, 1.0);
    Image grey = Goldens.decode(new ImageIoDecoder(), "grey.png", 1);
    Goldens.assertClose("grey_resize_30x40", apply(Resize.exact(30, 40), grey), 0, 1.0);
  }

  @Test
  void shouldCropPadAndFlipAsTorchvision() throws Exception {
    Goldens.assertClose("center_crop_100", apply(new CenterCrop(100, 100), photo()), 0, 1.0);
    Goldens.assertClose("center_crop_51x77", apply(new CenterCrop(51, 77), photo()), 0, 1.0);
    Goldens.assertClose("center_crop_130x170", apply(new CenterCrop(130, 170), photo()), 0, 1.0);
    Goldens.assertClose("pad_3", apply(new Pad(3, 0), photo()), 0, 1.0);
    Goldens.assertClose("pad_2_fill_9", apply(new Pad(2, 9), photo()), 0, 1.0);
    Image flipped = photo();
    Crops.flipHorizontal(flipped);
    Goldens.assertClose("hflip", flipped, 0, 1.0);
    Image padded = apply(new Pad(4, 0), photo());
    Goldens.assertClose(
        "random_crop_32_pad4_at_2_5", Crops.crop(padded, 2, 5, 32, 32, new Image()), 0, 1.0);
  }

  @Test
  void shouldResizeCropBoxesAsTorchvisionResizedCrop() throws Exception {
    int[][] cases = {
      {10, 20, 80, 100, 32, 32},
      {0, 0, 120, 160, 90, 100},
      {5, 7, 33, 21, 16, 24},
      {40, 30, 75, 120, 24, 24}
    };
    for (int[] c : cases) {
      RandomResizedCrop op = new RandomResizedCrop(c[4], c[5], 0.08, 1, 0.75, 4 / 3.0);
      Image out =
          op.resize(
              photo(), new CropBox(c[0], c[1], c[2], c[3]), 1, new Image(), scratch.resampler);
      Goldens.assertClose(
          String.format("resized_crop_%d_%d_%d_%d_to_%dx%d", c[0], c[1], c[2], c[3], c[4], c[5]),
          out,
          0,
          1.0);
    }
  }

  @Test
  void shouldWriteTensorsAsToTensorNormalizeAndPilToTensor() throws Exception {
    RandomResizedCrop op = new RandomResizedCrop(32, 32, 0.08, 1, 0.75, 4 / 3.0);
    Image crop =
        op.resize(photo(), new CropBox(10, 20, 80, 100), 1, new Image(), scratch.resampler);
    byte[] chw = PixelOutput.planar(crop, new byte[crop.bytes()]);
    Goldens.assertClose(
        "pil_to_tensor", Goldens.bytes("pil_to_tensor_resized_crop_10_20_80_100.u8"), chw, 0, 1.0);
    PixelNormalizer imagenet =
        PixelNormalizer.of(PixelOutput.IMAGENET_MEAN, PixelOutput.IMAGENET_STD);
    PixelNormalizer unit = PixelNormalizer.of(new double[3], new double[] {1, 1, 1});
    float[] normalized = Goldens.floats("normalize_imagenet_resized_crop_10_20_80_100.f32");
    float[] scaled = Goldens.floats("to_float_resized_crop_10_20_80_100.f32");
    int plane = 32 * 32;
    for (int i = 0; i < chw.length; i++) {
      assertThat(imagenet.value(i / plane, chw[i] & 0xff)).isEqualTo(normalized[i]);
      assertThat(unit.value(i / plane, chw[i] & 0xff)).isEqualTo(scaled[i]);
    }
  }
}
