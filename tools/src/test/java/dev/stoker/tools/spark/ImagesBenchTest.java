package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The images benchmark makes JPEG photos at ImageNet-like sizes, its PyTorch side reads them, and
 * the whole run writes valid JSON; no timing. The photographs are Debian's python3-skimage's, or a
 * few drawn here where it is missing; the PyTorch side needs torch and torchvision.
 */
class ImagesBenchTest {
  @TempDir Path dir;

  @Test
  void shouldCutPhotosAtImageNetSizesAsJpegs() throws IOException {
    List<BufferedImage> photos = ImageData.photos(photos());
    int portrait = 0;
    for (int i = 0; i < 40; i++) {
      byte[] jpeg = ImageData.encode(ImageData.cut(photos.get(i % photos.size()), i));
      BufferedImage back = ImageIO.read(new ByteArrayInputStream(jpeg));
      int longSide = Math.max(back.getWidth(), back.getHeight());
      int shortSide = Math.min(back.getWidth(), back.getHeight());
      assertThat(longSide).isBetween(450, 550);
      assertThat(shortSide).isBetween(337, 413);
      portrait += back.getHeight() > back.getWidth() ? 1 : 0;
    }
    assertThat(portrait).isBetween(3, 20);
  }

  @Test
  void shouldRefuseAFolderWithoutPhotographsNamingTheRemedy() {
    assertThatThrownBy(() -> ImageData.photos(dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("photos: '" + dir + "': no colour PNG or JPEG photographs")
        .hasMessageContaining("apt-get install python3-skimage");
  }

  @Test
  void shouldRunTheTorchSideOverTheSameFiles() throws IOException {
    String python = ImagesBench.defaultPython();
    String missing = ImagesBench.missingTorch(python);
    assumeTrue(missing == null, "skipped: " + missing);
    List<BufferedImage> photos = ImageData.photos(photos());
    Path files = dir.resolve("files");
    Files.createDirectories(files.resolve("images"));
    StringBuilder labels = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      Files.write(
          files.resolve(String.format("images/%06d.jpg", i)),
          ImageData.encode(ImageData.cut(photos.get(i % photos.size()), i)));
      labels.append(i % 3).append('\n');
    }
    Files.writeString(files.resolve("labels.txt"), labels);
    Map<Integer, Double> rates =
        TorchImagesPeer.in(dir, python)
            .run(files, 8, List.of(0, 1), new PrintWriter(new StringWriter()));
    assertThat(rates).containsOnlyKeys(0, 1);
    assertThat(rates.values()).allSatisfy(r -> assertThat(r).isPositive());
  }

  @Test
  void shouldRunBothSidesEndToEndAndWriteValidJson() throws IOException {
    String python = ImagesBench.defaultPython();
    String missing = ImagesBench.missingTorch(python);
    assumeTrue(missing == null, "skipped: " + missing);
    assumeTrue(
        parses(ImagesBench.SPEC), "skipped: this build's transforms lack " + ImagesBench.SPEC);
    StringWriter progress = new StringWriter();
    ImagesBenchResult result =
        ImagesBench.run(
            new ImagesBench.Config(40, 2, 8, 1, List.of(1, 2), List.of(0, 1), photos(), python),
            new PrintWriter(progress, true));
    StringWriter report = new StringWriter();
    result.print(new PrintWriter(report, true));

    JsonNode json = new ObjectMapper().readTree(result.json());
    assertThat(json.get("workload").asText()).isEqualTo("images");
    assertThat(json.get("samples").asInt()).isEqualTo(40);
    assertThat(json.get("stoker_samples_per_s").asDouble()).isPositive();
    assertThat(json.get("torch_samples_per_s").asDouble()).isPositive();
    assertThat(json.get("ratio").asDouble()).isPositive();
    assertThat(json.get("per_worker").get("stoker").fieldNames()).toIterable().contains("1", "2");
    assertThat(json.get("per_worker").get("torch").fieldNames()).toIterable().contains("0", "1");
    assertThat(progress.toString()).contains("wrote 40 JPEG photos", "warm-up", "round 1/1");
    assertThat(report.toString()).contains("best: Stoker", "1 -> 2 workers");
  }

  private static boolean parses(String spec) {
    try {
      dev.stoker.loader.transform.Transforms.parse(spec);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Debian's skimage photographs, else a few photo-like pictures drawn into the temp folder. */
  private Path photos() throws IOException {
    Path skimage = Path.of(ImagesBench.DEFAULT_PHOTOS);
    if (Files.isRegularFile(skimage.resolve("astronaut.png"))) {
      return skimage;
    }
    Path drawn = Files.createDirectories(dir.resolve("photographs"));
    for (int p = 0; p < 3; p++) {
      BufferedImage image = new BufferedImage(640, 480, BufferedImage.TYPE_3BYTE_BGR);
      for (int y = 0; y < 480; y++) {
        for (int x = 0; x < 640; x++) {
          image.setRGB(x, y, (x * (p + 1) & 0xff) << 16 | (y & 0xff) << 8 | (x + y) * p & 0xff);
        }
      }
      ImageIO.write(image, "png", drawn.resolve("photo" + p + ".png").toFile());
    }
    return drawn;
  }
}
