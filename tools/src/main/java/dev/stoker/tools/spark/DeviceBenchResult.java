package dev.stoker.tools.spark;

import dev.stoker.tools.spark.DeviceBench.Config;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The figures of a {@code spark-device} run: seconds per run of each path, rows/s from their
 * medians (rows handed out in full batches over all ranks, divided by the run's wall time), and the
 * device path's time to the first batch per run and its median.
 *
 * @param device the device the ranks' loaders delivered to (rank 0's, as the runner reports it)
 * @param firstBatchSeconds per run, from the start of the ranks' stage to the first batch on the
 *     slowest rank
 * @param firstBatchFromCallSeconds per run, from the start of the read on the driver to the same
 *     first batch
 */
public record DeviceBenchResult(
    Config config,
    String device,
    String sparkVersion,
    long rowsPerRun,
    long batchesPerRun,
    double writeSeconds,
    List<Double> stokerSeconds,
    List<Double> readSeconds,
    List<Double> firstBatchSeconds,
    List<Double> firstBatchFromCallSeconds) {

  /** Rows/s of the device path: read, runner, loaders, device, a training step's touch. */
  public double stokerRowsPerSecond() {
    return rowsPerRun / SourceBench.median(stokerSeconds);
  }

  /** Rows/s of the {@code format("stoker")} read alone. */
  public double readRowsPerSecond() {
    return rowsPerRun / SourceBench.median(readSeconds);
  }

  /** The device path's rows/s over the read's: what reaching a device loader costs. */
  public double ratio() {
    return stokerRowsPerSecond() / readRowsPerSecond();
  }

  public double firstBatchSecondsMedian() {
    return SourceBench.median(firstBatchSeconds);
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nworkload %s: %,d rows of %d floats + int label, %d ranks on "
            + "local[%d], batches of %d rows (%,d per run), numWorkers %d, device %s, Spark %s, "
            + "%d run(s) each way (median), %d cores%n%n",
        DeviceBench.WORKLOAD,
        config.rows(),
        config.elements(),
        config.ranks(),
        config.ranks(),
        config.batchSize(),
        batchesPerRun,
        config.numWorkers(),
        device,
        sparkVersion,
        config.repeats(),
        Runtime.getRuntime().availableProcessors());
    out.printf(Locale.ROOT, "%-52s %12s %10s%n", "path", "rows/s", "median s");
    out.printf(
        Locale.ROOT,
        "%-52s %,12.0f %10.2f%n",
        "format(\"stoker\") -> StokerSpark -> loader on " + device,
        stokerRowsPerSecond(),
        SourceBench.median(stokerSeconds));
    out.printf(
        Locale.ROOT,
        "%-52s %,12.0f %10.2f%n",
        "format(\"stoker\") read alone",
        readRowsPerSecond(),
        SourceBench.median(readSeconds));
    out.printf(
        Locale.ROOT,
        "%ndevice path / read alone: %.2fx; first batch %.3f s after the "
            + "ranks' stage started (%.3f s after the read began), slowest rank%n",
        ratio(),
        firstBatchSecondsMedian(),
        SourceBench.median(firstBatchFromCallSeconds));
  }

  public String json() {
    return "{\n"
        + "  \"workload\": \""
        + DeviceBench.WORKLOAD
        + "\",\n"
        + "  \"rows\": "
        + config.rows()
        + ",\n"
        + "  \"ranks\": "
        + config.ranks()
        + ",\n"
        + "  \"elements\": "
        + config.elements()
        + ",\n"
        + "  \"batch_size\": "
        + config.batchSize()
        + ",\n"
        + "  \"repeats\": "
        + config.repeats()
        + ",\n"
        + "  \"num_workers\": "
        + config.numWorkers()
        + ",\n"
        + "  \"device\": \""
        + device
        + "\",\n"
        + "  \"spark_version\": \""
        + sparkVersion
        + "\",\n"
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
        + number("%.1f", stokerRowsPerSecond())
        + ",\n"
        + "  \"read_rows_per_s\": "
        + number("%.1f", readRowsPerSecond())
        + ",\n"
        + "  \"ratio\": "
        + number("%.3f", ratio())
        + ",\n"
        + "  \"first_batch_s\": "
        + number("%.3f", firstBatchSecondsMedian())
        + ",\n"
        + "  \"first_batch_from_call_s\": "
        + number("%.3f", SourceBench.median(firstBatchFromCallSeconds))
        + ",\n"
        + "  \"stoker_seconds\": "
        + list(stokerSeconds)
        + ",\n"
        + "  \"read_seconds\": "
        + list(readSeconds)
        + ",\n"
        + "  \"first_batch_runs\": "
        + list(firstBatchSeconds)
        + ",\n"
        + "  \"write_seconds\": "
        + number("%.3f", writeSeconds)
        + "\n"
        + "}\n";
  }

  private static String number(String format, double value) {
    return String.format(Locale.ROOT, format, value);
  }

  private static String list(List<Double> seconds) {
    return seconds.stream()
        .map(s -> String.format(Locale.ROOT, "%.3f", s))
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
