package dev.stoker.spark.ui;

import java.util.List;
import java.util.Locale;

/** The inline SVG chart of each rank's exposed wait over a run's time. */
final class WaitChart {
  private static final String[] COLORS = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"
  };
  private static final int WIDTH = 720;
  private static final int HEIGHT = 180;
  private static final int LEFT = 44;
  private static final int RIGHT = 110;
  private static final int TOP = 12;
  private static final int BOTTOM = 28;

  private WaitChart() {}

  static void svg(StringBuilder html, String runId, long start, long end, List<RankView> ranks) {
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    long span = Math.max(1000, end - start);
    html.append(
        String.format(
            Locale.ROOT,
            "<svg class=\"stoker-chart\" id=\"stoker-chart-%s\" "
                + "xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" role=\"img\"><title>Exposed wait over time per rank: the "
                + "share of each interval the rank waited for data</title>\n",
            StokerPage.esc(runId),
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    for (int pct = 0; pct <= 100; pct += 25) {
      double y = TOP + plotH * (1 - pct / 100.0);
      html.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                  + "stroke=\"%s\" stroke-width=\"1\"/><text x=\"%d\" y=\"%.1f\" font-size=\"10\" "
                  + "text-anchor=\"end\">%d%%</text>\n",
              LEFT,
              y,
              LEFT + plotW,
              y,
              pct == 25 ? "#f0a0a0" : "#dddddd",
              LEFT - 4,
              y + 3,
              pct));
    }
    html.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" font-size=\"10\">0 s</text>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s</text>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">exposed wait "
                + "(share of each interval; the red line: 25%%, pipeline-bound)</text>\n",
            LEFT,
            HEIGHT - 8,
            LEFT + plotW,
            HEIGHT - 8,
            StokerPage.seconds(span),
            LEFT + plotW / 2,
            HEIGHT - 8));
    for (int i = 0; i < ranks.size(); i++) {
      RankView rank = ranks.get(i);
      String color = COLORS[rank.figures.rank() % COLORS.length];
      StringBuilder points = new StringBuilder();
      for (RankView.WaitPoint p : rank.series) {
        double x = LEFT + plotW * Math.min(1.0, Math.max(0, p.time() - start) / (double) span);
        double y = TOP + plotH * (1 - Math.min(1.0, Math.max(0, p.waitShare())));
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      html.append(
          String.format(
              Locale.ROOT,
              "<polyline data-rank=\"%d\" fill=\"none\" "
                  + "stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>",
              rank.figures.rank(),
              color,
              points.toString().trim()));
      if (rank.series.size() == 1) {
        RankView.WaitPoint p = rank.series.get(0);
        html.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" " + "fill=\"%s\"/>",
                LEFT + plotW * Math.min(1.0, Math.max(0, p.time() - start) / (double) span),
                TOP + plotH * (1 - Math.min(1.0, p.waitShare())),
                color));
      }
      html.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" font-size=\"11\" " + "fill=\"%s\">rank %d</text>\n",
              LEFT + plotW + 10,
              TOP + 12 + 14 * i,
              color,
              rank.figures.rank()));
    }
    html.append("</svg>\n");
  }
}
