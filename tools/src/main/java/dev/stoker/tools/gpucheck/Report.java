package dev.stoker.tools.gpucheck;

import dev.stoker.tools.gpucheck.device.RawCopies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the GPU check found, as {@code gpu-check.json} and as a short table. */
final class Report {
  final Map<String, Object> json = new LinkedHashMap<>();
  private final StringBuilder table = new StringBuilder();
  private final List<String> errors = new ArrayList<>();

  Report(String device, int ordinal, String driver, long memoryBytes) {
    json.put("gpu", true);
    json.put("device", device);
    json.put("ordinal", ordinal);
    json.put("driver_cuda_version", driver);
    json.put("memory_total_bytes", memoryBytes);
    json.put("java", System.getProperty("java.version"));
    json.put("cores", Runtime.getRuntime().availableProcessors());
    line(
        "Stoker GPU check: %s (cuda:%d), driver for CUDA %s, %d cores, Java %s",
        device,
        ordinal,
        driver,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
  }

  void error(String part, Throwable t) {
    errors.add(part + ": " + t);
    line("%s FAILED: %s", part, t);
  }

  boolean hasErrors() {
    return !errors.isEmpty();
  }

  void correctness(List<Correctness.Result> results) {
    List<Object> cases = new ArrayList<>();
    boolean passed = true;
    long rows = 0;
    line("");
    line(
        "1. correctness: batches read back from the device equal their samples; memory back "
            + "after close");
    for (Correctness.Result r : results) {
      passed &= r.passed();
      rows += r.rowsChecked();
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("name", r.name());
      c.put("config", r.config());
      c.put("batches", r.batches());
      c.put("rows_checked", r.rowsChecked());
      c.put("mismatches", r.mismatches());
      c.put("first_mismatch", r.firstMismatch());
      c.put("pinned_bytes_after_close", r.pinnedAfter());
      c.put("device_bytes_after_close", r.deviceAfter());
      c.put("memory_in_use_delta_bytes", r.usedDelta());
      c.put("tolerance_bytes", r.tolerance());
      c.put("passed", r.passed());
      cases.add(c);
      line(
          "   %-4s %-7s %-62s %6d rows, %d mismatches; after close: pinned %d B, device %d B, "
              + "in use %+d B",
          r.passed() ? "PASS" : "FAIL",
          r.name(),
          r.config(),
          r.rowsChecked(),
          r.mismatches(),
          r.pinnedAfter(),
          r.deviceAfter(),
          r.usedDelta());
      if (r.firstMismatch() != null) {
        line("        first mismatch: %s", r.firstMismatch());
      }
    }
    json.put("correctness", Map.of("passed", passed, "rows_checked", rows, "cases", cases));
  }

  boolean correctnessPassed() {
    Object c = json.get("correctness");
    return c instanceof Map<?, ?> map && Boolean.TRUE.equals(map.get("passed"));
  }

  void bandwidth(Bandwidth.Result b) {
    RawCopies.Result raw = b.raw();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("batch_bytes", b.batchBytes());
    m.put("batches", b.batches());
    m.put("num_workers", b.numWorkers());
    m.put("loader_gbps", b.loaderGbps());
    m.put("transfer_stage_gbps", b.transferStageGbps());
    m.put("raw_pinned_gbps", raw.pinnedGbps());
    m.put("raw_pinned_wait_each_gbps", raw.pinnedWaitEachGbps());
    m.put("raw_pageable_gbps", raw.pageableGbps());
    m.put("transfer_stage_ratio", b.transferRatio());
    m.put("loader_ratio", b.loaderRatio());
    m.put("target_ratio", 0.9);
    m.put("meets_target", b.transferRatio() >= 0.9);
    json.put("bandwidth", m);
    line("");
    line("2. bandwidth, host to device, %d MiB batches (GB/s = 1e9 B/s)", b.batchBytes() >> 20);
    line(
        "   loader: transfer stage %.1f GB/s = %.2f x raw pinned (target 0.9); end to end %.1f "
            + "GB/s with %d workers filling",
        b.transferStageGbps(), b.transferRatio(), b.loaderGbps(), b.numWorkers());
    line(
        "   raw cudaMemcpyAsync: pinned %.1f GB/s back to back, %.1f waiting after each; "
            + "pageable %.1f",
        raw.pinnedGbps(), raw.pinnedWaitEachGbps(), raw.pageableGbps());
  }

  void overlap(
      String workload,
      int samples,
      int batchSize,
      List<Overlap.Row> loadOnly,
      List<Overlap.Row> rows,
      TorchPeer.Result peer) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("workload", workload);
    m.put("samples", samples);
    m.put("batch_size", batchSize);
    m.put("load_only", loadOnly.stream().map(Report::row).toList());
    m.put("rows", rows.stream().map(Report::row).toList());
    json.put("overlap", m);
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("status", peer.ran() ? "ran" : "skipped");
    p.put("reason", peer.reason());
    p.put("torch_version", peer.torchVersion());
    p.put("rows", peer.rows().stream().map(Report::row).toList());
    json.put("peer", p);
    line("");
    line(
        "3. overlap: %s workload, batch %d, a step of a set time per batch on the GPU; busy "
            + "below 0.80: the pipeline is the bottleneck",
        workload, batchSize);
    line(
        "   %-7s %7s %7s %8s %5s %10s %6s  %s",
        "feeder", "step_ms", "workers", "prefetch", "depth", "samples/s", "busy", "note");
    for (Overlap.Row r : loadOnly) {
      tableRow(r, "loading alone (" + r.verdict() + ")");
    }
    for (Overlap.Row r : rows) {
      tableRow(r, r.pipelineBound() ? "pipeline-bound" : "");
    }
    line("");
    line(
        "4. peer: PyTorch DataLoader (pin_memory=True, non_blocking=True), same workload and "
            + "step: %s",
        peer.ran() ? "torch " + peer.torchVersion() : "skipped (" + peer.reason() + ")");
    for (Overlap.Row r : peer.rows()) {
      tableRow(r, r.pipelineBound() ? "pipeline-bound" : "");
    }
    targets(loadOnly, rows, peer.rows());
  }

  private void targets(
      List<Overlap.Row> loadOnly, List<Overlap.Row> rows, List<Overlap.Row> torch) {
    Map<String, Object> t = new LinkedHashMap<>();
    Object bandwidth = json.get("bandwidth");
    t.put(
        "bandwidth_ratio_at_least_0_9",
        bandwidth instanceof Map<?, ?> b ? b.get("meets_target") : null);
    Boolean busy = null;
    for (Overlap.Row r : rows) {
      double loadSamples =
          loadOnly.stream()
              .filter(l -> l.config().equals(r.config()))
              .mapToDouble(Overlap.Row::samplesPerSecond)
              .findFirst()
              .orElse(0);
      double stepSamples = r.stepMs() <= 0 ? 0 : 1e3 / r.stepMs();
      if (loadSamples > 0 && stepSamples * batchOf(r) < loadSamples) {
        busy = (busy == null || busy) && r.busy() >= 0.95;
      }
    }
    t.put("busy_at_least_0_95_when_the_step_is_longer_than_loading", busy);
    List<Object> versusTorch = new ArrayList<>();
    for (double step : rows.stream().mapToDouble(Overlap.Row::stepMs).distinct().toArray()) {
      double best =
          rows.stream()
              .filter(r -> r.stepMs() == step)
              .mapToDouble(Overlap.Row::samplesPerSecond)
              .max()
              .orElse(0);
      double bestTorch =
          torch.stream()
              .filter(r -> r.stepMs() == step)
              .mapToDouble(Overlap.Row::samplesPerSecond)
              .max()
              .orElse(0);
      if (bestTorch > 0) {
        versusTorch.add(
            Map.of(
                "step_ms",
                step,
                "stoker_samples_per_s",
                best,
                "torch_samples_per_s",
                bestTorch,
                "at_least_torch",
                best >= bestTorch));
      }
    }
    t.put("samples_per_s_at_least_torch", versusTorch);
    json.put("targets", t);
  }

  private double batchOf(Overlap.Row r) {
    Object o = json.get("overlap");
    return o instanceof Map<?, ?> m && m.get("batch_size") instanceof Integer b ? b : 1;
  }

  private void tableRow(Overlap.Row r, String note) {
    line(
        "   %-7s %7s %7d %8d %5s %10.0f %6s  %s",
        r.feeder(),
        r.stepMs() == 0 ? "-" : String.format(Locale.ROOT, "%.2f", r.stepMs()),
        r.config().numWorkers(),
        r.config().prefetchFactor(),
        r.config().transferDepth() == 0 ? "-" : String.valueOf(r.config().transferDepth()),
        r.samplesPerSecond(),
        r.stepMs() == 0 ? "-" : String.format(Locale.ROOT, "%.3f", r.busy()),
        note);
  }

  private static Map<String, Object> row(Overlap.Row r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("feeder", r.feeder());
    m.put("step_ms", r.stepMs());
    m.put("num_workers", r.config().numWorkers());
    m.put("prefetch_factor", r.config().prefetchFactor());
    m.put("transfer_depth", r.config().transferDepth());
    m.put("batches", r.batches());
    m.put("samples_per_s", r.samplesPerSecond());
    m.put("gpu_busy", r.busy());
    m.put("pipeline_bound", r.stepMs() > 0 && r.pipelineBound());
    m.put("verdict", r.verdict());
    return m;
  }

  void finish(double seconds) {
    json.put("errors", errors);
    json.put("seconds", seconds);
    line("");
    line(
        "%s in %.0f s%s",
        correctnessPassed() && errors.isEmpty() ? "PASSED" : "FAILED",
        seconds,
        errors.isEmpty() ? "" : "; errors: " + String.join("; ", errors));
  }

  String table() {
    return table.toString();
  }

  private void line(String format, Object... args) {
    table.append(String.format(Locale.ROOT, format, args)).append('\n');
  }
}
