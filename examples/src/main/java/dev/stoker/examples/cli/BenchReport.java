package dev.stoker.examples.cli;

import dev.stoker.tools.bench.Sweep;
import dev.stoker.tools.bench.SweepConfig;
import dev.stoker.tools.bench.SweepResult;
import dev.stoker.tools.bench.SweepRow;
import java.io.PrintWriter;
import java.util.Locale;

/** The results of one {@code bench} run as a text table and as JSON. */
final class BenchReport {
  private final String workload;
  private final Integer chunkRows;
  private final Sweep sweep;
  private final SweepResult result;
  private final long bytesPerSample;

  /**
   * @param chunkRows rows per chunk of a streamed workload, null for a map dataset
   */
  BenchReport(
      String workload, Integer chunkRows, Sweep sweep, SweepResult result, long bytesPerSample) {
    this.workload = workload;
    this.chunkRows = chunkRows;
    this.sweep = sweep;
    this.result = result;
    this.bytesPerSample = bytesPerSample;
  }

  String workload() {
    return workload;
  }

  SweepResult result() {
    return result;
  }

  /** The single-thread memcpy bandwidth in samples/s of this workload's output. */
  double memcpySamplesPerSecond() {
    return result.memcpyMbPerSecond() * 1e6 / bytesPerSample;
  }

  /** The all-cores memcpy bandwidth in samples/s of this workload's output. */
  double memcpyAllCoresSamplesPerSecond() {
    return result.memcpyAllCoresMbPerSecond() * 1e6 / bytesPerSample;
  }

  /** Threads of the all-cores memcpy. */
  int memcpyThreads() {
    return result.memcpy().threads();
  }

  void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nworkload %s%s: %,d samples, batch %d, %d measured batches x %d "
            + "run(s) per configuration (median), %d cores%n%n",
        workload,
        chunkRows == null ? "" : String.format(Locale.ROOT, " (chunks of %,d rows)", chunkRows),
        result.samples(),
        result.batchSize(),
        sweep.measuredBatches(),
        sweep.repeats(),
        Runtime.getRuntime().availableProcessors());
    String allCores = "/" + memcpyThreads() + " cores";
    out.printf(
        Locale.ROOT,
        "%7s %8s %5s %11s %8s %9s %9s  %-20s %13s %3s%n",
        "workers",
        "prefetch",
        "pin",
        "samples/s",
        "MB/s",
        "/1 thread",
        allCores,
        "verdict",
        "alloc B/batch",
        "GC");
    for (SweepRow row : result.rows()) {
      SweepConfig c = row.config();
      out.printf(
          Locale.ROOT,
          "%7d %8s %5s %,11.0f %,8.0f %9s %9s  %-20s %13s %3s%n",
          c.workers(),
          c.prefetch() == null ? "-" : c.prefetch().toString(),
          c.pinMemory(),
          row.samplesPerSecond(),
          row.mbPerSecond(),
          ratio(row.ratioToMemcpy()),
          ratio(row.ratioToAllCores()),
          row.verdict().label(),
          bytes(row.allocatedBytesPerBatch()),
          count(row.gcCollections()));
    }
    out.println();
    out.printf(
        Locale.ROOT,
        "alloc B/batch: heap bytes per batch over all threads, epoch "
            + "boundaries left out (each allocates the epoch's index arrays and metrics: %s B for "
            + "the best configuration); GC: collections in the measured window%n",
        bytes(result.best().allocatedBytesPerEpochBoundary()));
    out.printf(
        Locale.ROOT,
        "memcpy, 1 thread, same gather: %,.0f MB/s (%,.0f samples/s)%n",
        result.memcpyMbPerSecond(),
        memcpySamplesPerSecond());
    out.printf(
        Locale.ROOT,
        "memcpy, %d threads (all cores), same gather: %,.0f MB/s " + "(%,.0f samples/s)%n",
        memcpyThreads(),
        result.memcpyAllCoresMbPerSecond(),
        memcpyAllCoresSamplesPerSecond());
    out.printf(
        Locale.ROOT,
        "(memcpy: medians of one measurement before each of the %d " + "round(s) of the grid)%n",
        sweep.repeats());
    SweepRow best = result.best();
    out.printf(
        Locale.ROOT,
        "best: %s: %,.0f samples/s, %,.0f MB/s, %s memcpy 1 thread, %s " + "memcpy all cores%n",
        best.config().label(),
        best.samplesPerSecond(),
        best.mbPerSecond(),
        ratio(best.ratioToMemcpy()),
        ratio(best.ratioToAllCores()));
    out.println("      " + best.median().report().summary());
  }

  private static String ratio(double value) {
    return Double.isFinite(value) ? String.format(Locale.ROOT, "%.2fx", value) : "?";
  }

  private static String bytes(double value) {
    return Double.isFinite(value) ? String.format(Locale.ROOT, "%,.0f", value) : "?";
  }

  private static String count(long value) {
    return value < 0 ? "?" : Long.toString(value);
  }

  /** The results as a JSON document. */
  String json() {
    StringBuilder json = new StringBuilder("{\n");
    json.append("  \"workload\": ").append(string(workload)).append(",\n");
    json.append("  \"samples\": ").append(result.samples()).append(",\n");
    json.append("  \"batch_size\": ").append(result.batchSize()).append(",\n");
    json.append("  \"measured_batches\": ").append(sweep.measuredBatches()).append(",\n");
    json.append("  \"warmup_batches\": ").append(sweep.warmupBatches()).append(",\n");
    json.append("  \"repeats\": ").append(sweep.repeats()).append(",\n");
    json.append("  \"cores\": ").append(Runtime.getRuntime().availableProcessors()).append(",\n");
    json.append("  \"bytes_per_sample\": ").append(bytesPerSample).append(",\n");
    json.append("  \"chunk_rows\": ")
        .append(chunkRows == null ? "null" : chunkRows.toString())
        .append(",\n");
    json.append("  \"memcpy_mb_s\": ").append(number(result.memcpyMbPerSecond(), 1)).append(",\n");
    json.append("  \"memcpy_all_cores_mb_s\": ")
        .append(number(result.memcpyAllCoresMbPerSecond(), 1))
        .append(",\n");
    json.append("  \"memcpy_threads\": ").append(memcpyThreads()).append(",\n");
    json.append("  \"configs\": [\n");
    for (int i = 0; i < result.rows().size(); i++) {
      json.append("    ")
          .append(row(result.rows().get(i)))
          .append(i + 1 < result.rows().size() ? ",\n" : "\n");
    }
    json.append("  ],\n");
    json.append("  \"best\": ").append(row(result.best())).append("\n}\n");
    return json.toString();
  }

  private static String row(SweepRow row) {
    SweepConfig c = row.config();
    long gc = row.gcCollections();
    return "{\"workers\": "
        + c.workers()
        + ", \"prefetch\": "
        + (c.prefetch() == null ? "null" : c.prefetch())
        + ", \"pin_memory\": "
        + c.pinMemory()
        + ", \"samples_per_s\": "
        + number(row.samplesPerSecond(), 1)
        + ", \"mb_per_s\": "
        + number(row.mbPerSecond(), 1)
        + ", \"ratio_to_memcpy\": "
        + number(row.ratioToMemcpy(), 4)
        + ", \"ratio_to_all_cores\": "
        + number(row.ratioToAllCores(), 4)
        + ", \"verdict\": "
        + string(row.verdict().label())
        + ", \"verdict_detail\": "
        + string(row.median().report().summary())
        + ", \"alloc_bytes_per_batch\": "
        + number(row.allocatedBytesPerBatch(), 1)
        + ", \"alloc_bytes_per_epoch_boundary\": "
        + number(row.allocatedBytesPerEpochBoundary(), 0)
        + ", \"gc_collections\": "
        + (gc < 0 ? "null" : Long.toString(gc))
        + "}";
  }

  private static String number(double value, int decimals) {
    return Double.isFinite(value)
        ? String.format(Locale.ROOT, "%." + decimals + "f", value)
        : "null";
  }

  private static String string(String text) {
    StringBuilder s = new StringBuilder("\"");
    for (char ch : text.toCharArray()) {
      switch (ch) {
        case '"' -> s.append("\\\"");
        case '\\' -> s.append("\\\\");
        case '\n' -> s.append("\\n");
        case '\r' -> s.append("\\r");
        case '\t' -> s.append("\\t");
        default -> {
          if (ch < 0x20) {
            s.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            s.append(ch);
          }
        }
      }
    }
    return s.append('"').toString();
  }
}
