package dev.stoker.tools.spark;

import dev.stoker.tools.spark.ResumeBench.Config;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of a {@code resume} run: per source ({@code indexed}, {@code parquet}) and cut point,
 * the seconds to the first batch of each round, their median, and the 90 % / 0 % ratio.
 */
public record ResumeBenchResult(Config config, Map<String, List<List<Double>>> seconds) {

  /** The median seconds to the first batch of {@code source} at cut {@code c} of the cuts. */
  public double median(String source, int c) {
    return SourceBench.median(seconds.get(source).get(c));
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nworkload %s: %,d rows of %d floats + label, %d ranks, batches of "
            + "%d rows, %d worker(s), %d round(s) (median), %d cores%n%n",
        ResumeBench.WORKLOAD,
        config.rows(),
        config.elements(),
        config.ranks(),
        config.batchSize(),
        config.workers(),
        config.repeats(),
        Runtime.getRuntime().availableProcessors());
    out.printf(Locale.ROOT, "%-36s", "first batch, median s, resumed at");
    for (int cut : ResumeBench.CUTS) {
      out.printf(Locale.ROOT, " %8s", cut + " %");
    }
    out.printf(Locale.ROOT, " %10s%n", "90 % / 0 %");
    for (String source : seconds.keySet()) {
      out.printf(
          Locale.ROOT,
          "%-36s",
          source.equals("indexed") ? "indexed (map dataset)" : "format(\"stoker\") over Parquet");
      for (int c = 0; c < ResumeBench.CUTS.length; c++) {
        out.printf(Locale.ROOT, " %8.3f", median(source, c));
      }
      out.printf(
          Locale.ROOT,
          " %9.2fx%n",
          median(source, ResumeBench.CUTS.length - 1) / median(source, 0));
    }
  }

  public String json() {
    List<String> sources = new ArrayList<>();
    for (String source : seconds.keySet()) {
      List<String> cuts = new ArrayList<>();
      for (int c = 0; c < ResumeBench.CUTS.length; c++) {
        cuts.add(
            String.format(Locale.ROOT, "\"%d%%\": %.4f", ResumeBench.CUTS[c], median(source, c)));
      }
      sources.add("    \"" + source + "\": {" + String.join(", ", cuts) + "}");
    }
    return "{\n"
        + "  \"workload\": \""
        + ResumeBench.WORKLOAD
        + "\",\n"
        + "  \"rows\": "
        + config.rows()
        + ",\n"
        + "  \"elements\": "
        + config.elements()
        + ",\n"
        + "  \"ranks\": "
        + config.ranks()
        + ",\n"
        + "  \"batch_size\": "
        + config.batchSize()
        + ",\n"
        + "  \"workers\": "
        + config.workers()
        + ",\n"
        + "  \"repeats\": "
        + config.repeats()
        + ",\n"
        + "  \"cores\": "
        + Runtime.getRuntime().availableProcessors()
        + ",\n"
        + "  \"first_batch_s\": {\n"
        + String.join(",\n", sources)
        + "\n  }\n"
        + "}\n";
  }
}
