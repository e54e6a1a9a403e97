package dev.stoker.tools.spark;

import dev.stoker.tools.spark.SourceBench.Config;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The figures of a {@code spark-source} run: seconds per run each way, and rows/s from their
 * medians (rows handed out in full batches over all ranks, divided by the run's wall time).
 */
public record SourceBenchResult(
    Config config,
    long rowsPerRun,
    long batchesPerRun,
    double writeSeconds,
    List<Double> stokerSeconds,
    List<Double> baselineSeconds) {

  public double stokerRowsPerSecond() {
    return rowsPerRun / SourceBench.median(stokerSeconds);
  }

  public double baselineRowsPerSecond() {
    return rowsPerRun / SourceBench.median(baselineSeconds);
  }

  public double speedup() {
    return stokerRowsPerSecond() / baselineRowsPerSecond();
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nworkload %s: %,d rows of %d floats + int label, %d ranks on "
            + "local[%d], batches of %d rows (%,d per run), %d run(s) each way (median), %d "
            + "cores%n%n",
        SourceBench.WORKLOAD,
        config.rows(),
        config.elements(),
        config.ranks(),
        config.ranks(),
        config.batchSize(),
        batchesPerRun,
        config.repeats(),
        Runtime.getRuntime().availableProcessors());
    out.printf(Locale.ROOT, "%-44s %12s %10s%n", "read", "rows/s", "median s");
    out.printf(
        Locale.ROOT,
        "%-44s %,12.0f %10.2f%n",
        "format(\"stoker\") (shuffled, dropLast)",
        stokerRowsPerSecond(),
        SourceBench.median(stokerSeconds));
    out.printf(
        Locale.ROOT,
        "%-44s %,12.0f %10.2f%n",
        "parquet + repartition + batching rows",
        baselineRowsPerSecond(),
        SourceBench.median(baselineSeconds));
    out.printf(Locale.ROOT, "%nformat(\"stoker\") / baseline: %.2fx%n", speedup());
  }

  public String json() {
    return "{\n"
        + "  \"workload\": \""
        + SourceBench.WORKLOAD
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
        + "  \"repeats\": "
        + config.repeats()
        + ",\n"
        + "  \"cores\": "
        + Runtime.getRuntime().availableProcessors()
        + ",\n"
        + "  \"rows_per_run\": "
        + rowsPerRun
        + ",\n"
        + "  \"batches_per_run\": "
        + batchesPerRun
        + ",\n"
        + "  \"stoker_rows_per_s\": "
        + number(stokerRowsPerSecond())
        + ",\n"
        + "  \"baseline_rows_per_s\": "
        + number(baselineRowsPerSecond())
        + ",\n"
        + "  \"speedup\": "
        + String.format(Locale.ROOT, "%.3f", speedup())
        + ",\n"
        + "  \"stoker_seconds\": "
        + list(stokerSeconds)
        + ",\n"
        + "  \"baseline_seconds\": "
        + list(baselineSeconds)
        + ",\n"
        + "  \"write_seconds\": "
        + String.format(Locale.ROOT, "%.3f", writeSeconds)
        + "\n"
        + "}\n";
  }

  private static String number(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  private static String list(List<Double> seconds) {
    return seconds.stream()
        .map(s -> String.format(Locale.ROOT, "%.3f", s))
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
