package dev.stoker.examples.cli;

import dev.stoker.tools.bench.SweepConfig;
import dev.stoker.tools.bench.SweepRow;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Paint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * Draws samples/s per configuration of a {@code bench} run as a bar chart, best bar highlighted,
 * with the memcpy limits (one thread, all cores) as dashed lines.
 */
final class BenchChart {
  private static final int WIDTH = 960;
  private static final int HEIGHT = 540;
  private static final Color BAR = new Color(0x4C78A8);
  private static final Color BEST = new Color(0xF58518);

  private BenchChart() {}

  /** Writes the chart as a PNG to {@code file}. */
  static void writePng(Path file, BenchReport report) throws IOException {
    System.setProperty("java.awt.headless", "true");
    ChartUtils.saveChartAsPNG(file.toFile(), chart(report), WIDTH, HEIGHT);
  }

  static JFreeChart chart(BenchReport report) {
    List<SweepRow> rows = report.result().rows();
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (SweepRow row : rows) {
      data.addValue(row.samplesPerSecond(), "samples/s", label(row.config()));
    }
    JFreeChart chart =
        ChartFactory.createBarChart(
            String.format(
                Locale.ROOT,
                "stoker bench: %s, %,d samples, batch %d",
                report.workload(),
                report.result().samples(),
                report.result().batchSize()),
            "configuration",
            "samples/s",
            data);
    chart.removeLegend();
    CategoryPlot plot = chart.getCategoryPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    SweepConfig best = report.result().best().config();
    BarRenderer renderer =
        new BarRenderer() {
          @Override
          public Paint getItemPaint(int series, int column) {
            return rows.get(column).config().equals(best) ? BEST : BAR;
          }
        };
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    plot.setRenderer(renderer);
    double oneThread = report.memcpySamplesPerSecond();
    double allCores = report.memcpyAllCoresSamplesPerSecond();
    addLimit(plot, oneThread, "memcpy, 1 thread", new float[] {6f, 4f}, false);
    addLimit(
        plot,
        allCores,
        "memcpy, " + report.memcpyThreads() + " threads (all cores)",
        new float[] {2f, 3f},
        true);
    double top = rows.stream().mapToDouble(SweepRow::samplesPerSecond).max().orElse(0);
    for (double limit : new double[] {oneThread, allCores}) {
      top = Double.isFinite(limit) ? Math.max(top, limit) : top;
    }
    plot.getRangeAxis().setUpperBound(Math.max(1, top) * 1.12);
    return chart;
  }

  /** A dashed line across the plot at {@code samplesPerSecond}, if known, labelled at one end. */
  private static void addLimit(
      CategoryPlot plot,
      double samplesPerSecond,
      String label,
      float[] dashes,
      boolean labelRight) {
    if (!Double.isFinite(samplesPerSecond) || samplesPerSecond <= 0) {
      return;
    }
    ValueMarker marker =
        new ValueMarker(
            samplesPerSecond,
            Color.DARK_GRAY,
            new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, dashes, 0f));
    marker.setLabel(label);
    marker.setLabelOffset(new RectangleInsets(2, 4, 2, 4));
    marker.setLabelAnchor(labelRight ? RectangleAnchor.TOP_RIGHT : RectangleAnchor.TOP_LEFT);
    marker.setLabelTextAnchor(labelRight ? TextAnchor.BOTTOM_RIGHT : TextAnchor.BOTTOM_LEFT);
    plot.addRangeMarker(marker);
  }

  private static String label(SweepConfig c) {
    return "w"
        + c.workers()
        + (c.prefetch() == null ? "" : " p" + c.prefetch())
        + (c.pinMemory() ? " pin" : "");
  }
}
