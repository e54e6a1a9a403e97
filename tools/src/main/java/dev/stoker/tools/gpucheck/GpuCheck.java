package dev.stoker.tools.gpucheck;

import dev.stoker.loader.MapDataset;
import dev.stoker.loader.device.CudaAvailability;
import dev.stoker.loader.device.CudaDevice;
import dev.stoker.tools.bench.ReferenceWorkloads;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The GPU check: {@code GpuCheck OUT [--device N] [--torch-script FILE] [--python PYTHON]}. Runs
 * the four parts on CUDA device N (default 0) and writes {@code gpu-check.json} and {@code
 * gpu-check.txt} into OUT. Exit status: 0 all correct, 1 a check failed, 2 bad arguments, 3 no GPU
 * (said on the first line, and in the JSON).
 */
public final class GpuCheck {
  public static final int PASSED = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int NO_GPU = 3;

  private GpuCheck() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out));
  }

  /** Runs the check; returns the exit status. */
  public static int run(String[] args, PrintStream out) {
    Map<String, String> options = new LinkedHashMap<>();
    Path dir;
    try {
      dir = parse(args, options);
    } catch (IllegalArgumentException e) {
      out.println("gpu-check: " + e.getMessage());
      out.println("usage: GpuCheck OUT [--device N] [--torch-script FILE] [--python PYTHON]");
      return USAGE;
    }
    try {
      Files.createDirectories(dir);
      CudaAvailability found = CudaDevice.availability();
      if (!found.available()) {
        return noGpu(found, dir, out);
      }
      return check(Integer.parseInt(options.getOrDefault("--device", "0")), options, dir, out);
    } catch (IOException e) {
      out.println("gpu-check: writing into " + dir + " failed: " + e);
      return FAILED;
    }
  }

  private static Path parse(String[] args, Map<String, String> options) {
    Path dir = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (List.of("--device", "--torch-script", "--python").contains(arg)) {
        if (i + 1 == args.length) {
          throw new IllegalArgumentException(arg + ": a value is missing");
        }
        options.put(arg, args[++i]);
      } else if (arg.startsWith("--") || dir != null) {
        throw new IllegalArgumentException(
            "argument '"
                + arg
                + "' (expected: OUT once, and "
                + "--device, --torch-script, --python)");
      } else {
        dir = Path.of(arg);
      }
    }
    if (dir == null) {
      throw new IllegalArgumentException("the output folder OUT is missing");
    }
    String device = options.getOrDefault("--device", "0");
    if (!device.matches("\\d{1,4}")) {
      throw new IllegalArgumentException("--device: '" + device + "' (expected: an ordinal)");
    }
    return dir;
  }

  private static int noGpu(CudaAvailability found, Path dir, PrintStream out) throws IOException {
    String line = "gpu-check: no GPU: " + found.describe();
    out.println(line);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("gpu", false);
    json.put("problem", found.describe());
    json.put("cuda_probe_code", found.code());
    Files.writeString(dir.resolve("gpu-check.json"), Json.write(json), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("gpu-check.txt"), line + "\n", StandardCharsets.UTF_8);
    return NO_GPU;
  }

  private static int check(int ordinal, Map<String, String> options, Path dir, PrintStream out)
      throws IOException {
    try (CudaDevice device = CudaDevice.of(ordinal)) {
      return check(device, new JCudaGpu(ordinal), Plan.standard(), options, dir, out);
    }
  }

  /**
   * The four parts on {@code device} (the calling thread bound to it), through {@code gpu}; writes
   * the JSON and the table into {@code dir}. Returns the exit status.
   */
  public static int check(
      CudaDevice device, Gpu gpu, Plan plan, Map<String, String> options, Path dir, PrintStream out)
      throws IOException {
    long start = System.nanoTime();
    Report report = new Report(gpu.name(), device.ordinal(), gpu.driverVersion(), gpu.totalBytes());
    out.println("gpu-check: " + gpu.name() + "; 1/4 correctness");
    try {
      report.correctness(
          Correctness.run(device, gpu.access(), plan.cases(), plan.toleranceBytes()));
    } catch (Throwable t) {
      report.error("correctness", t);
    }
    out.println("gpu-check: 2/4 bandwidth");
    try {
      report.bandwidth(Bandwidth.run(device, gpu, plan.bandwidthEpochs(), plan.bandwidthBatches()));
    } catch (Throwable t) {
      report.error("bandwidth", t);
    }
    overlapAndPeer(device, gpu, plan, options, dir, out, report, start);
    report.finish((System.nanoTime() - start) / 1e9);
    Files.writeString(
        dir.resolve("gpu-check.json"), Json.write(report.json), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("gpu-check.txt"), report.table(), StandardCharsets.UTF_8);
    out.print(report.table());
    return report.correctnessPassed() && !report.hasErrors() ? PASSED : FAILED;
  }

  private static void overlapAndPeer(
      CudaDevice device,
      Gpu gpu,
      Plan plan,
      Map<String, String> options,
      Path dir,
      PrintStream out,
      Report report,
      long start) {
    out.println("gpu-check: 3/4 overlap");
    List<Overlap.Row> loadOnly = new ArrayList<>();
    List<Overlap.Row> rows = new ArrayList<>();
    try {
      MapDataset data = (MapDataset) ReferenceWorkloads.normalize(plan.overlapSamples(), 7);
      for (Overlap.Config config : plan.configs()) {
        loadOnly.add(
            Overlap.loadOnly(
                device, data, plan.batchSize(), config, plan.warmup(), plan.measured()));
      }
      rows =
          Overlap.sweep(
              device,
              gpu,
              data,
              plan.batchSize(),
              plan.configs(),
              plan.stepsMs(),
              plan.warmup(),
              plan.measured(),
              start + TimeUnit.SECONDS.toNanos(plan.javaBudgetSeconds()));
    } catch (Throwable t) {
      report.error("overlap", t);
    }
    out.println("gpu-check: 4/4 peer (PyTorch)");
    TorchPeer.Result peer;
    String script = options.get("--torch-script");
    if (script == null || !Files.isRegularFile(Path.of(script))) {
      peer = new TorchPeer.Result(false, "no script (--torch-script)", null, List.of());
    } else {
      long left =
          plan.totalBudgetSeconds() - TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
      peer =
          TorchPeer.run(
              options.getOrDefault("--python", "python3"),
              Path.of(script),
              dir.resolve("torch-peer.log"),
              device.ordinal(),
              plan.overlapSamples(),
              plan.batchSize(),
              plan.stepsMs(),
              plan.configs(),
              plan.warmup(),
              plan.measured(),
              Math.max(30, left));
    }
    report.overlap("normalize", plan.overlapSamples(), plan.batchSize(), loadOnly, rows, peer);
  }
}
