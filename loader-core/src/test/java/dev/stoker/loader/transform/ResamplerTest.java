package dev.stoker.loader.transform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one-axis paths of the resampler (a height or a width changed alone), which the goldens do not
 * reach: a vertical resize equals the horizontal one of the transposed image, transposed back, and
 * a two-axis resize whose width stays equals the vertical one alone.
 */
class ResamplerTest {

  @Test
  void shouldResizeOneAxisAsTheOtherOnTheTransposedImage() {
    Random random = new Random(3);
    Resampler resampler = new Resampler();
    for (int trial = 0; trial < 50; trial++) {
      int channels = random.nextBoolean() ? 3 : 1;
      int width = 1 + random.nextInt(40);
      int height = 1 + random.nextInt(40);
      int outHeight = 1 + random.nextInt(60);
      Image image = random(random, width, height, channels);

      Image vertical = new Image();
      resampler.resample(
          image,
          0,
          0,
          width,
          height,
          0,
          0,
          width,
          height,
          width,
          outHeight,
          resampler.into(vertical));
      Image horizontal = new Image();
      Image transposed = transpose(image);
      resampler.resample(
          transposed,
          0,
          0,
          height,
          width,
          0,
          0,
          height,
          width,
          outHeight,
          width,
          resampler.into(horizontal));

      assertThat(transpose(horizontal).copyPixels())
          .as("trial %d: %dx%dx%d to height %d", trial, width, height, channels, outHeight)
          .isEqualTo(vertical.copyPixels());
    }
  }

  @Test
  void shouldResizeARegionOfALargerImage() {
    Random random = new Random(4);
    Resampler resampler = new Resampler();
    Image image = random(random, 30, 20, 3);
    Image region = new Image().reset(10, 12, 3);
    for (int y = 0; y < 12; y++) {
      System.arraycopy(image.pixels, ((5 + y) * 30 + 7) * 3, region.pixels, y * 30, 30);
    }
    Image fromRegion = new Image();
    resampler.resample(image, 7, 5, 17, 17, 0, 0, 10, 12, 10, 5, resampler.into(fromRegion));
    Image fromCopy = new Image();
    resampler.resample(region, 0, 0, 10, 12, 0, 0, 10, 12, 10, 5, resampler.into(fromCopy));
    assertThat(fromRegion.copyPixels()).isEqualTo(fromCopy.copyPixels());
  }

  /**
   * Every pass against a plain transcription of Pillow's separable filter (no skipped pass, no
   * window moved, no tap count written out): the sizes give windows of one to a dozen taps, grey
   * and RGB, whole images and regions with fractional boxes.
   */
  @Test
  void shouldMatchAPlainTranscriptionOfPillowsFilterForEveryTapCount() {
    Random random = new Random(5);
    Resampler resampler = new Resampler();
    Image out = new Image();
    for (int trial = 0; trial < 400; trial++) {
      int channels = random.nextInt(4) == 0 ? 1 : 3;
      int width = 1 + random.nextInt(120);
      int height = 1 + random.nextInt(120);
      Image image = random(random, width, height, channels);
      int rx0 = random.nextInt(width);
      int ry0 = random.nextInt(height);
      int rx1 = rx0 + 1 + random.nextInt(width - rx0);
      int ry1 = ry0 + 1 + random.nextInt(height - ry0);
      double bx0 = random.nextBoolean() ? 0 : random.nextDouble() * 0.9;
      double by0 = random.nextBoolean() ? 0 : random.nextDouble() * 0.9;
      double bx1 = (rx1 - rx0) - (random.nextBoolean() ? 0 : random.nextDouble() * 0.09);
      double by1 = (ry1 - ry0) - (random.nextBoolean() ? 0 : random.nextDouble() * 0.09);
      int outW = 1 + random.nextInt(random.nextBoolean() ? 12 : 90);
      int outH = 1 + random.nextInt(random.nextBoolean() ? 12 : 90);
      resampler.resample(
          image, rx0, ry0, rx1, ry1, bx0, by0, bx1, by1, outW, outH, resampler.into(out));
      byte[] expected =
          PillowFilter.resample(image, rx0, ry0, rx1, ry1, bx0, by0, bx1, by1, outW, outH);
      assertThat(out.copyPixels())
          .as(
              "trial %d: region [%d,%d)x[%d,%d) of %dx%dx%d, box (%s,%s)-(%s,%s), to %dx%d",
              trial, rx0, rx1, ry0, ry1, width, height, channels, bx0, by0, bx1, by1, outW, outH)
          .isEqualTo(expected);
    }
  }

  /**
   * A sink asking for channel planes, a mirrored order or both gets each value of the interleaved
   * result where its layout says, for every tap count of both passes and with no horizontal pass
   * (the width unchanged), odd and even row counts alike.
   */
  @Test
  void shouldPlaceEveryValueWhereTheSinksLayoutSays() {
    Random random = new Random(6);
    Resampler resampler = new Resampler();
    Image interleaved = new Image();
    for (int trial = 0; trial < 300; trial++) {
      int channels = random.nextInt(4) == 0 ? 1 : 3;
      int width = 1 + random.nextInt(100);
      int height = 1 + random.nextInt(100);
      Image image = random(random, width, height, channels);
      int outW =
          random.nextInt(5) == 0 ? width : 1 + random.nextInt(random.nextBoolean() ? 12 : 90);
      int outH = 1 + random.nextInt(random.nextBoolean() ? 12 : 90);
      resampler.resample(
          image, 0, 0, width, height, 0, 0, width, height, outW, outH, resampler.into(interleaved));
      for (boolean planar : new boolean[] {false, true}) {
        for (boolean mirrored : new boolean[] {false, true}) {
          RowLayout layout = RowLayout.of(planar, mirrored, outW, channels);
          int[][] rows = new int[outH][];
          resampler.resample(
              image,
              0,
              0,
              width,
              height,
              0,
              0,
              width,
              height,
              outW,
              outH,
              new Resampler.Rows() {
                @Override
                public void begin(int w, int h, int c) {}

                @Override
                public RowLayout layout(int w, int c) {
                  return layout;
                }

                @Override
                public void row(int y, int[] values) {
                  rows[y] = java.util.Arrays.copyOf(values, outW * channels);
                }
              });
          for (int y = 0; y < outH; y++) {
            for (int x = 0; x < outW; x++) {
              for (int ch = 0; ch < channels; ch++) {
                int expected = interleaved.pixels[(y * outW + x) * channels + ch] & 0xff;
                int column = mirrored ? outW - 1 - x : x;
                int at = planar ? ch * outW + column : column * channels + ch;
                assertThat(rows[y][at])
                    .as(
                        "trial %d (%dx%dx%d to %dx%d), planar %s, mirrored %s: pixel (%d, %d) "
                            + "channel %d",
                        trial, width, height, channels, outW, outH, planar, mirrored, x, y, ch)
                    .isEqualTo(expected);
              }
            }
          }
        }
      }
    }
  }

  private static Image random(Random random, int width, int height, int channels) {
    Image image = new Image().reset(width, height, channels);
    for (int i = 0; i < image.bytes(); i++) {
      image.pixels[i] = (byte) random.nextInt(256);
    }
    return image;
  }

  private static Image transpose(Image image) {
    int c = image.channels;
    Image out = new Image().reset(image.height, image.width, c);
    for (int y = 0; y < image.height; y++) {
      for (int x = 0; x < image.width; x++) {
        for (int k = 0; k < c; k++) {
          out.pixels[(x * image.height + y) * c + k] = image.pixels[(y * image.width + x) * c + k];
        }
      }
    }
    return out;
  }
}
