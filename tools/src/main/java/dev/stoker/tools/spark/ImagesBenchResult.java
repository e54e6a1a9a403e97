package dev.stoker.tools.spark;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The figures of the images benchmark: per worker count the median samples/s of each side, each
 * side's best, their ratio, and Stoker's gain from one worker to two, against the goals (Stoker at
 * least twice PyTorch's best on the same cores; 1 to 2 workers at least 1.7x).
 */
public final class ImagesBenchResult {
  /** The goal of Stoker's best over PyTorch's best. */
  static final double RATIO_GOAL = 2.0;

  /** The goal of Stoker's samples/s with two workers over one. */
  static final double SCALING_GOAL = 1.7;

  private final ImagesBench.Config config;
  private final long jpegBytes;
  private final double writeSeconds;
  private final Map<Integer, List<Double>> stoker;
  private final Map<Integer, List<Double>> torch;

  ImagesBenchResult(
      ImagesBench.Config config,
      long jpegBytes,
      double writeSeconds,
      Map<Integer, List<Double>> stoker,
      Map<Integer, List<Double>> torch) {
    this.config = config;
    this.jpegBytes = jpegBytes;
    this.writeSeconds = writeSeconds;
    this.stoker = stoker;
    this.torch = torch;
  }

  /** Stoker's best median samples/s over its worker counts. */
  public double stokerSamplesPerSecond() {
    return best(stoker);
  }

  /** PyTorch's best median samples/s over its worker counts. */
  public double torchSamplesPerSecond() {
    return best(torch);
  }

  /** Stoker's best over PyTorch's best. */
  public double ratio() {
    return stokerSamplesPerSecond() / torchSamplesPerSecond();
  }

  /** Stoker's samples/s with two workers over one, or NaN where either was not run. */
  public double scalingOneToTwo() {
    if (!stoker.containsKey(1) || !stoker.containsKey(2)) {
      return Double.NaN;
    }
    return median(stoker.get(2)) / median(stoker.get(1));
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "images: %,d JPEG photos (%.0f KB on average), batch %d; Stoker: format(\"stoker\") with "
            + "transforms=%s on %d ranks; PyTorch: torchvision on PIL in a DataLoader over the "
            + "same JPEG files; %d cores; medians of %d rounds%n",
        config.images(),
        jpegBytes / 1024.0 / config.images(),
        config.batchSize(),
        ImagesBench.SPEC,
        config.ranks(),
        Runtime.getRuntime().availableProcessors(),
        config.repeats());
    out.printf(Locale.ROOT, "%-18s %8s %12s%n", "side", "workers", "samples/s");
    out.println(
        "(Stoker: numWorkers of each rank's loader; PyTorch: num_workers of its one loader)");
    for (Map.Entry<Integer, List<Double>> e : stoker.entrySet()) {
      out.printf(Locale.ROOT, "%-18s %8d %12.1f%n", "stoker", e.getKey(), median(e.getValue()));
    }
    for (Map.Entry<Integer, List<Double>> e : torch.entrySet()) {
      out.printf(Locale.ROOT, "%-18s %8d %12.1f%n", "torch", e.getKey(), median(e.getValue()));
    }
    out.printf(
        Locale.ROOT,
        "%nbest: Stoker %.1f, PyTorch %.1f samples/s: %.2fx (goal >= %.1fx: %s)%n",
        stokerSamplesPerSecond(),
        torchSamplesPerSecond(),
        ratio(),
        RATIO_GOAL,
        ratio() >= RATIO_GOAL ? "met" : "not met");
    if (!Double.isNaN(scalingOneToTwo())) {
      out.printf(
          Locale.ROOT,
          "Stoker 1 -> 2 workers per rank: %.2fx (goal >= %.1fx: %s)%n",
          scalingOneToTwo(),
          SCALING_GOAL,
          scalingOneToTwo() >= SCALING_GOAL ? "met" : "not met");
    }
    out.flush();
  }

  public String json() {
    double scaling = scalingOneToTwo();
    return "{\n"
        + "  \"workload\": \""
        + ImagesBench.WORKLOAD
        + "\",\n"
        + "  \"samples\": "
        + config.images()
        + ",\n"
        + "  \"stoker_samples_per_epoch\": "
        + config.stokerSamples()
        + ",\n"
        + "  \"jpeg_bytes\": "
        + jpegBytes
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
        + "  \"transforms\": \""
        + ImagesBench.SPEC
        + "\",\n"
        + "  \"stoker_samples_per_s\": "
        + number(stokerSamplesPerSecond())
        + ",\n"
        + "  \"torch_samples_per_s\": "
        + number(torchSamplesPerSecond())
        + ",\n"
        + "  \"ratio\": "
        + String.format(Locale.ROOT, "%.3f", ratio())
        + ",\n"
        + "  \"stoker_1_to_2_workers\": "
        + (Double.isNaN(scaling) ? "null" : String.format(Locale.ROOT, "%.3f", scaling))
        + ",\n"
        + "  \"per_worker\": {\n"
        + "    \"stoker\": "
        + medians(stoker)
        + ",\n"
        + "    \"torch\": "
        + medians(torch)
        + "\n  },\n"
        + "  \"runs\": {\n"
        + "    \"stoker\": "
        + runs(stoker)
        + ",\n"
        + "    \"torch\": "
        + runs(torch)
        + "\n  },\n"
        + "  \"write_seconds\": "
        + String.format(Locale.ROOT, "%.3f", writeSeconds)
        + "\n"
        + "}\n";
  }

  private static double best(Map<Integer, List<Double>> rates) {
    return rates.values().stream().mapToDouble(ImagesBenchResult::median).max().orElse(0);
  }

  private static double median(List<Double> values) {
    return values.isEmpty() ? Double.NaN : SourceBench.median(values);
  }

  private static String medians(Map<Integer, List<Double>> rates) {
    return rates.entrySet().stream()
        .map(e -> "\"" + e.getKey() + "\": " + number(median(e.getValue())))
        .collect(Collectors.joining(", ", "{", "}"));
  }

  private static String runs(Map<Integer, List<Double>> rates) {
    return rates.entrySet().stream()
        .map(
            e ->
                "\""
                    + e.getKey()
                    + "\": "
                    + e.getValue().stream()
                        .map(ImagesBenchResult::number)
                        .collect(Collectors.joining(", ", "[", "]")))
        .collect(Collectors.joining(", ", "{", "}"));
  }

  private static String number(double value) {
    return Double.isNaN(value) ? "null" : String.format(Locale.ROOT, "%.1f", value);
  }
}
