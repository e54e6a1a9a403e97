package dev.stoker.examples.demo;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a demo run found: per epoch its figures, the normalization statistics, samples/s per loader
 * configuration, and the wall time; as text lines and as JSON.
 */
public record DemoSummary(
    DemoOptions options,
    String master,
    double[] mean,
    double[] std,
    List<Epoch> epochs,
    Map<String, Double> samplesPerSecond,
    double wallSeconds) {

  /**
   * One epoch.
   *
   * @param samplesPerSecond samples the loaders delivered per second, over all ranks
   * @param verdict rank 0's bottleneck verdict
   * @param droppedAtRead rows {@code format("stoker")} left out: the tail of the epoch's order past
   *     the last full batch of every rank
   * @param droppedRowsPerRank rows each rank's loader left out (dropLast)
   */
  public record Epoch(
      int epoch,
      double loss,
      double accuracy,
      double samplesPerSecond,
      String verdict,
      long droppedAtRead,
      List<Long> droppedRowsPerRank,
      double seconds) {

    /** The line printed for the epoch. */
    public String text(int epochs) {
      return String.format(
          Locale.ROOT,
          "epoch %d/%d: loss %.4f, test accuracy %.4f, %.0f "
              + "samples/s, verdict %s, rows dropped: %d at the read, per rank %s, %.1f s",
          epoch,
          epochs,
          loss,
          accuracy,
          samplesPerSecond,
          verdict,
          droppedAtRead,
          droppedRowsPerRank,
          seconds);
    }
  }

  /** The test accuracy after the last epoch. */
  public double finalAccuracy() {
    return epochs.isEmpty() ? 0 : epochs.get(epochs.size() - 1).accuracy();
  }

  /** The summary as a JSON object. */
  public String json() {
    String perEpoch =
        epochs.stream()
            .map(
                e ->
                    String.format(
                        Locale.ROOT,
                        "    {\"epoch\": %d, \"loss\": %s, \"testAccuracy\": %s, \"samplesPerSecond\": %.1f, "
                            + "\"verdict\": %s, \"droppedAtRead\": %d, \"droppedRowsPerRank\": %s, "
                            + "\"seconds\": %.2f}",
                        e.epoch(),
                        exact(e.loss()),
                        exact(e.accuracy()),
                        e.samplesPerSecond(),
                        quote(e.verdict()),
                        e.droppedAtRead(),
                        e.droppedRowsPerRank(),
                        e.seconds()))
            .collect(Collectors.joining(",\n"));
    String configs =
        samplesPerSecond.entrySet().stream()
            .map(e -> String.format(Locale.ROOT, "    %s: %.1f", quote(e.getKey()), e.getValue()))
            .collect(Collectors.joining(",\n"));
    return String.format(
        Locale.ROOT,
        "{%n  \"dataset\": \"fashion-mnist\",%n  \"master\": %s,%n"
            + "  \"model\": \"%s\",%n"
            + "  \"ranks\": %d,%n  \"batchSizePerRank\": %d,%n  \"hidden\": %d,%n"
            + "  \"learningRate\": %s,%n  \"seed\": %d,%n  \"pixelMean\": %s,%n"
            + "  \"pixelStd\": %s,%n  \"epochs\": [%n%s%n  ],%n"
            + "  \"samplesPerSecond\": {%n%s%n  },%n  \"finalTestAccuracy\": %s,%n"
            + "  \"wallSeconds\": %.1f%n}%n",
        quote(master),
        options.model.name().toLowerCase(Locale.ROOT),
        options.ranks,
        options.batchSize,
        options.hidden,
        options.learningRate(),
        options.seed,
        exact(mean[0]),
        exact(std[0]),
        perEpoch,
        configs,
        exact(finalAccuracy()),
        wallSeconds);
  }

  /**
   * A figure to compare across runs: the shortest decimal that reads back as the same double
   * (bitwise), or null where it is not finite (JSON has no NaN).
   */
  private static String exact(double figure) {
    return Double.isFinite(figure) ? Double.toString(figure) : "null";
  }

  private static String quote(String text) {
    return text == null ? "null" : "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
