package dev.stoker.examples.demo;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.Range;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The demo's picture, one PNG a person can open: training loss and test accuracy per epoch on the
 * left, samples/s per loader configuration on the right.
 */
public final class TrainingPlot {
  private static final int WIDTH = 1200;
  private static final int HEIGHT = 500;

  /** One epoch's figures. */
  public record Epoch(int epoch, double loss, double accuracy) {}

  private TrainingPlot() {}

  /** Writes the picture to {@code file}. */
  public static void write(Path file, List<Epoch> epochs, Map<String, Double> samplesPerSecond)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);
      learning(epochs).draw(g, new java.awt.Rectangle(0, 0, WIDTH / 2, HEIGHT));
      throughput(samplesPerSecond).draw(g, new java.awt.Rectangle(WIDTH / 2, 0, WIDTH / 2, HEIGHT));
    } finally {
      g.dispose();
    }
    ImageIO.write(image, "png", file.toFile());
  }

  private static JFreeChart learning(List<Epoch> epochs) {
    XYSeries loss = new XYSeries("training loss");
    XYSeries accuracy = new XYSeries("test accuracy");
    for (Epoch e : epochs) {
      loss.add(e.epoch(), e.loss());
      accuracy.add(e.epoch(), e.accuracy());
    }
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            "Loss and accuracy per epoch",
            "epoch",
            "loss",
            new XYSeriesCollection(loss),
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    ((NumberAxis) plot.getDomainAxis()).setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    NumberAxis right = new NumberAxis("accuracy");
    right.setRange(accuracyRange(epochs));
    plot.setRangeAxis(1, right);
    plot.setDataset(1, new XYSeriesCollection(accuracy));
    plot.mapDatasetToRangeAxis(1, 1);
    XYLineAndShapeRenderer lossLine = new XYLineAndShapeRenderer(true, true);
    lossLine.setSeriesPaint(0, new Color(0xE45756));
    lossLine.setSeriesStroke(0, new BasicStroke(2f));
    XYLineAndShapeRenderer accuracyLine = new XYLineAndShapeRenderer(true, true);
    accuracyLine.setSeriesPaint(0, new Color(0x4C78A8));
    accuracyLine.setSeriesStroke(0, new BasicStroke(2f));
    plot.setRenderer(0, lossLine);
    plot.setRenderer(1, accuracyLine);
    return chart;
  }

  /**
   * The accuracy axis: the figures' span with a margin, within 0 and 1, so that a climb from 0.87
   * to 0.89 is seen as one (a fixed 0 to 1 drew it flat).
   */
  static Range accuracyRange(List<Epoch> epochs) {
    double low = 1;
    double high = 0;
    for (Epoch e : epochs) {
      if (Double.isFinite(e.accuracy())) {
        low = Math.min(low, e.accuracy());
        high = Math.max(high, e.accuracy());
      }
    }
    if (low > high) {
      return new Range(0, 1);
    }
    double margin = Math.max(0.01, (high - low) * 0.15);
    return new Range(Math.max(0, low - margin), Math.min(1, high + margin));
  }

  private static JFreeChart throughput(Map<String, Double> samplesPerSecond) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    samplesPerSecond.forEach((config, rate) -> data.addValue(rate, "samples/s", config));
    JFreeChart chart =
        ChartFactory.createBarChart(
            "Samples/s per loader configuration",
            "configuration",
            "samples/s",
            data,
            PlotOrientation.VERTICAL,
            false,
            false,
            false);
    CategoryPlot plot = chart.getCategoryPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    return chart;
  }
}
