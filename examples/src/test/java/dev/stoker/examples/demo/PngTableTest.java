package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** The demo's PNG images decode to exactly the raw pixels they were made from. */
class PngTableTest {

  @Test
  void shouldEncodeAGreyImageThatDecodesToTheSamePixels() throws IOException {
    byte[] pixels = new byte[784];
    new SplittableRandom(7).nextBytes(pixels);
    byte[] png = PngTable.encode(pixels);

    BufferedImage back = ImageIO.read(new ByteArrayInputStream(png));
    assertThat(png[1]).isEqualTo((byte) 0x50);
    assertThat(back.getType()).isEqualTo(BufferedImage.TYPE_BYTE_GRAY);
    assertThat(back.getRaster().getDataElements(0, 0, 28, 28, null)).isEqualTo(pixels);
  }

  @Test
  void shouldRefuseAnythingButOneImage() {
    assertThatThrownBy(() -> PngTable.encode(new byte[100]))
        .hasMessage("pixels: 100 bytes (expected: 784, one 28x28 image)");
  }

  @Test
  void shouldNameTheAugmentationWithTheTrainingStatistics() {
    PixelStats.Result stats =
        new PixelStats.Result(new double[] {0.286}, new double[] {0.353}, 60000, 1, 1);
    assertThat(DemoJob.transforms(stats))
        .isEqualTo("decode(gray)|pad(4)|randomCrop(28)|hflip|normalize(mean=0.286,std=0.353)");
  }
}
