package dev.stoker.tools.spark;

import dev.stoker.loader.metrics.ShuffleQuality;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The figures of a {@code shuffle} run: per setting the median rows/s of its epochs and the mean of
 * each quality measure over them, beside a uniform random permutation's.
 */
public record ShuffleBenchResult(
    ShuffleBench.Config config,
    List<ShuffleBench.Setting> settings,
    List<ShuffleQuality> permutation) {

  /** Rows every epoch hands out: full batches on every rank. */
  public long rowsPerEpoch() {
    return config.rows()
        / ((long) config.ranks() * config.batchSize())
        * config.ranks()
        * config.batchSize();
  }

  public double rowsPerSecond(ShuffleBench.Setting setting) {
    return rowsPerEpoch() / SourceBench.median(setting.seconds());
  }

  static double mean(List<ShuffleQuality> epochs, ToDoubleFunction<ShuffleQuality> measure) {
    return epochs.stream().mapToDouble(measure).average().orElse(0);
  }

  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%nworkload %s: %,d rows sorted by label (%d classes), %d ranks on local[%d], batches of "
            + "%d rows, %d epoch(s) per setting, %d cores%n%n",
        ShuffleBench.WORKLOAD,
        config.rows(),
        ShuffleBench.CLASSES,
        config.ranks(),
        config.ranks(),
        config.batchSize(),
        config.epochs(),
        Runtime.getRuntime().availableProcessors());
    out.printf(
        Locale.ROOT, "%-26s %12s %14s %10s%n", "setting", "rows/s", "gap entropy", "label TV");
    for (ShuffleBench.Setting setting : settings) {
      out.printf(
          Locale.ROOT,
          "%-26s %,12.0f %14.2f %10.3f%n",
          setting.name(),
          rowsPerSecond(setting),
          mean(setting.quality(), ShuffleQuality::gapEntropyBits),
          mean(setting.quality(), ShuffleQuality::labelTv));
    }
    out.printf(
        Locale.ROOT,
        "%-26s %12s %14.2f %10.3f%n",
        "a random permutation",
        "",
        mean(permutation, ShuffleQuality::gapEntropyBits),
        mean(permutation, ShuffleQuality::labelTv));
  }

  public String json() {
    StringBuilder json = new StringBuilder("{\n");
    json.append("  \"workload\": \"").append(ShuffleBench.WORKLOAD).append("\",\n");
    json.append("  \"rows\": ").append(config.rows()).append(",\n");
    json.append("  \"classes\": ").append(ShuffleBench.CLASSES).append(",\n");
    json.append("  \"ranks\": ").append(config.ranks()).append(",\n");
    json.append("  \"batch_size\": ").append(config.batchSize()).append(",\n");
    json.append("  \"epochs\": ").append(config.epochs()).append(",\n");
    json.append("  \"cores\": ").append(Runtime.getRuntime().availableProcessors()).append(",\n");
    json.append("  \"settings\": [\n");
    for (int i = 0; i < settings.size(); i++) {
      ShuffleBench.Setting setting = settings.get(i);
      json.append(
          String.format(
              Locale.ROOT,
              "    {\"setting\": \"%s\", \"rows_per_s\": %.1f, \"gap_entropy\": %.4f, "
                  + "\"label_tv\": %.5f}%s%n",
              setting.name(),
              rowsPerSecond(setting),
              mean(setting.quality(), ShuffleQuality::gapEntropyBits),
              mean(setting.quality(), ShuffleQuality::labelTv),
              i + 1 < settings.size() ? "," : ""));
    }
    json.append("  ],\n");
    json.append(
        String.format(
            Locale.ROOT,
            "  \"full_shuffle_gap_entropy\": %.4f,%n  \"full_shuffle_label_tv\": %.5f%n}%n",
            mean(permutation, ShuffleQuality::gapEntropyBits),
            mean(permutation, ShuffleQuality::labelTv)));
    return json.toString();
  }
}
