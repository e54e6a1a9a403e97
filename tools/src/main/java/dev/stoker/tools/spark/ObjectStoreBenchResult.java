package dev.stoker.tools.spark;

import dev.stoker.tools.spark.ObjectStoreBench.Run;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The figures of an {@code object-store} run: rows/s of each read (median of the runs), the rows/s
 * the shaped link could carry of the bytes Stoker read, the server's requests and the time to the
 * first batch of a Stoker run (medians), and the requests of the cached second epoch.
 */
public record ObjectStoreBenchResult(
    ObjectStoreBench.Config config,
    long rowsPerRun,
    List<Run> stoker,
    List<Run> spark,
    long epoch2Requests) {

  public double stokerRowsPerSecond() {
    return rowsPerRun / median(stoker, Run::seconds);
  }

  public double sparkRowsPerSecond() {
    return rowsPerRun / median(spark, Run::seconds);
  }

  /** What the link could carry of the bytes Stoker read, in rows/s; NaN without a rate. */
  public double linkLimitRowsPerSecond() {
    if (config.linkGbS() <= 0) {
      return Double.NaN;
    }
    double seconds = median(stoker, Run::bytes) / (config.linkGbS() * 1e9);
    return rowsPerRun / seconds;
  }

  static double median(List<Run> runs, ToDoubleFunction<Run> value) {
    return SourceBench.median(runs.stream().map(r -> value.applyAsDouble(r)).toList());
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nworkload %s: %,d rows of %d floats + label on an S3 server (s3a), %s, %d ranks on "
            + "local[%d], batches of %d rows, median of %d runs, %d cores%n%n",
        ObjectStoreBench.WORKLOAD,
        config.rows(),
        ObjectStoreBench.WIDTH,
        !config.shaped()
            ? "on the loopback, unshaped"
            : config.linkGbS() > 0
                ? String.format(
                    Locale.ROOT,
                    "a link of %.1f ms round trip and %.3f GB/s",
                    config.rttMs(),
                    config.linkGbS())
                : String.format(
                    Locale.ROOT, "a link of %.1f ms round trip, no rate limit", config.rttMs()),
        config.ranks(),
        config.ranks(),
        config.batchSize(),
        stoker.size(),
        Runtime.getRuntime().availableProcessors());
    out.printf(Locale.ROOT, "%-22s %12s %10s %14s%n", "read", "rows/s", "requests", "first batch");
    out.printf(
        Locale.ROOT,
        "%-22s %,12.0f %10.0f %12.2f s%n",
        "format(\"stoker\")",
        stokerRowsPerSecond(),
        median(stoker, Run::requests),
        median(stoker, Run::firstBatchSeconds));
    out.printf(
        Locale.ROOT,
        "%-22s %,12.0f %10.0f%n",
        "Spark's Parquet reader",
        sparkRowsPerSecond(),
        median(spark, Run::requests));
    if (config.linkGbS() > 0) {
      out.printf(
          Locale.ROOT,
          "%-22s %,12.0f  (%.0f MB read by Stoker a run)%n",
          "link limit",
          linkLimitRowsPerSecond(),
          median(stoker, Run::bytes) / 1e6);
    }
    out.printf(
        Locale.ROOT,
        "%nformat(\"stoker\") / Spark: %.2fx; cached second epoch: %d requests%n",
        stokerRowsPerSecond() / sparkRowsPerSecond(),
        epoch2Requests);
  }

  public String json() {
    return "{\n"
        + field("workload", "\"" + ObjectStoreBench.WORKLOAD + "\"")
        + field("rows", Long.toString(config.rows()))
        + field("ranks", Integer.toString(config.ranks()))
        + field("batch_size", Integer.toString(config.batchSize()))
        + field("repeats", Integer.toString(config.repeats()))
        + field("cores", Integer.toString(Runtime.getRuntime().availableProcessors()))
        + field("rtt_ms", number(config.rttMs()))
        + field("link_gb_s", config.linkGbS() > 0 ? number(config.linkGbS()) : "null")
        + field("stoker_rows_per_s", number(stokerRowsPerSecond()))
        + field("spark_rows_per_s", number(sparkRowsPerSecond()))
        + field(
            "link_limit_rows_per_s",
            config.linkGbS() > 0 ? number(linkLimitRowsPerSecond()) : "null")
        + field("requests", number(median(stoker, Run::requests)))
        + field("spark_requests", number(median(spark, Run::requests)))
        + field("first_batch_s", number(median(stoker, Run::firstBatchSeconds)))
        + field("stoker_seconds", list(stoker))
        + field("spark_seconds", list(spark))
        + "  \"epoch2_requests\": "
        + epoch2Requests
        + "\n}\n";
  }

  private static String field(String name, String value) {
    return "  \"" + name + "\": " + value + ",\n";
  }

  private static String number(double value) {
    return Double.isNaN(value) ? "null" : String.format(Locale.ROOT, "%.3f", value);
  }

  private static String list(List<Run> runs) {
    return runs.stream()
        .map(r -> String.format(Locale.ROOT, "%.3f", r.seconds()))
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
