package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainingPlotTest {
  @TempDir Path dir;

  @Test
  void shouldDrawLossAccuracyAndThroughputIntoOnePng() throws Exception {
    Map<String, Double> rates = new LinkedHashMap<>();
    rates.put("workers=0", 120_000.0);
    rates.put("workers=2", 310_000.0);
    Path png = dir.resolve("demo.png");
    TrainingPlot.write(
        png,
        List.of(new TrainingPlot.Epoch(0, 0.6, 0.80), new TrainingPlot.Epoch(1, 0.4, 0.85)),
        rates);
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(1200);
    assertThat(image.getHeight()).isEqualTo(500);
    int colours = 0;
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int x = 0; x < image.getWidth(); x += 7) {
      for (int y = 0; y < image.getHeight(); y += 7) {
        if (seen.add(image.getRGB(x, y))) {
          colours++;
        }
      }
    }
    assertThat(colours).as("something was drawn, not a blank image").isGreaterThan(5);
  }

  @Test
  void shouldSpanTheAccuracyAxisOverTheFiguresNotFromZeroToOne() {
    org.jfree.data.Range climb =
        TrainingPlot.accuracyRange(
            List.of(new TrainingPlot.Epoch(0, 0.5, 0.87), new TrainingPlot.Epoch(1, 0.4, 0.89)));
    assertThat(climb.getLowerBound()).isBetween(0.85, 0.87);
    assertThat(climb.getUpperBound()).isBetween(0.89, 0.91);

    org.jfree.data.Range one =
        TrainingPlot.accuracyRange(List.of(new TrainingPlot.Epoch(0, 0.5, 0.995)));
    assertThat(one.getLowerBound()).isEqualTo(0.985, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(one.getUpperBound()).as("never past 1").isEqualTo(1.0);
    assertThat(TrainingPlot.accuracyRange(List.of(new TrainingPlot.Epoch(0, 0.5, Double.NaN))))
        .as("no figure: the whole scale")
        .isEqualTo(new org.jfree.data.Range(0, 1));
  }
}
