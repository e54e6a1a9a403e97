package dev.stoker.tools.gpucheck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Part 4: the same workload and step fed by PyTorch's DataLoader (pin_memory=True,
 * non_blocking=True), run by {@code gpu_check_torch.py} with the machine's {@code python3}, when it
 * has PyTorch with CUDA; skipped, with the reason, otherwise. The script prints one line per
 * measurement, {@code torch key=value ...}.
 */
public final class TorchPeer {
  /** What the peer did: ran (with rows), or was skipped (with the reason). */
  public record Result(boolean ran, String reason, String torchVersion, List<Overlap.Row> rows) {}

  private TorchPeer() {}

  /** Runs the script; gives up after {@code timeoutSeconds}, keeping the rows it printed. */
  public static Result run(
      String python,
      Path script,
      Path log,
      int ordinal,
      int samples,
      int batchSize,
      double[] stepsMs,
      List<Overlap.Config> configs,
      int warmup,
      int measured,
      long timeoutSeconds) {
    List<String> command =
        List.of(
            python,
            script.toString(),
            "--device",
            String.valueOf(ordinal),
            "--samples",
            String.valueOf(samples),
            "--batch-size",
            String.valueOf(batchSize),
            "--steps-ms",
            join(stepsMs),
            "--configs",
            configs.stream()
                .map(c -> c.numWorkers() + ":" + c.prefetchFactor())
                .collect(Collectors.joining(",")),
            "--warmup",
            String.valueOf(warmup),
            "--batches",
            String.valueOf(measured));
    Process process;
    try {
      process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    } catch (IOException e) {
      return new Result(
          false, python + " could not be started: " + e.getMessage(), null, List.of());
    }
    List<Overlap.Row> rows = new ArrayList<>();
    String version = null;
    String skipped = null;
    Thread killer =
        new Thread(
            () -> {
              try {
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                  process.destroyForcibly();
                }
              } catch (InterruptedException e) {
                process.destroyForcibly();
              }
            },
            "gpu-check-torch-timeout");
    killer.setDaemon(true);
    killer.start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        if (!line.startsWith("torch ")) {
          continue;
        }
        Map<String, String> kv = parse(line.substring(6));
        if (kv.containsKey("skipped")) {
          skipped = kv.get("skipped").replace('_', ' ');
        } else if (kv.containsKey("version")) {
          version = kv.get("version");
        } else if (kv.containsKey("samples_per_s")) {
          rows.add(
              new Overlap.Row(
                  "torch",
                  Double.parseDouble(kv.get("step_ms")),
                  new Overlap.Config(
                      Integer.parseInt(kv.get("workers")), Integer.parseInt(kv.get("prefetch")), 0),
                  Long.parseLong(kv.get("batches")),
                  Double.parseDouble(kv.get("samples_per_s")),
                  Double.parseDouble(kv.get("busy")),
                  ""));
        }
      }
      int exit = process.waitFor();
      if (skipped != null) {
        return new Result(false, skipped, version, rows);
      }
      if (exit != 0 && rows.isEmpty()) {
        return new Result(
            false,
            "the script exited with " + exit + " (see " + log.getFileName() + ")",
            version,
            rows);
      }
      return new Result(
          true,
          exit == 0
              ? null
              : "exited with "
                  + exit
                  + " after "
                  + rows.size()
                  + " rows (see "
                  + log.getFileName()
                  + ")",
          version,
          rows);
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      return new Result(false, "reading the script's output failed: " + e, version, rows);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      return new Result(false, "interrupted", version, rows);
    }
  }

  /** {@code a=1 b=x} into a map. */
  static Map<String, String> parse(String text) {
    Map<String, String> kv = new HashMap<>();
    for (String part : text.trim().split("\\s+")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        kv.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return kv;
  }

  private static String join(double[] values) {
    List<String> parts = new ArrayList<>();
    for (double v : values) {
      parts.add(String.format(Locale.ROOT, "%s", v));
    }
    return String.join(",", parts);
  }
}
