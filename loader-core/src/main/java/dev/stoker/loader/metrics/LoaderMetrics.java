package dev.stoker.loader.metrics;

import java.util.List;
import java.util.Locale;

/**
 * A loader's metrics: every epoch it ran (the last {@value #EPOCHS_KEPT} at most), and the totals
 * over them.
 */
public record LoaderMetrics(String loader, List<EpochMetrics> epochs) {
  /** How many epochs' metrics a loader keeps. */
  public static final int EPOCHS_KEPT = 100;

  public LoaderMetrics {
    epochs = List.copyOf(epochs);
  }

  public long batches() {
    return epochs.stream().mapToLong(EpochMetrics::batches).sum();
  }

  public long samples() {
    return epochs.stream().mapToLong(EpochMetrics::samples).sum();
  }

  public double seconds() {
    return epochs.stream().mapToDouble(EpochMetrics::seconds).sum();
  }

  public double samplesPerSecond() {
    double seconds = seconds();
    return seconds <= 0 ? 0 : samples() / seconds;
  }

  public long skipped() {
    return epochs.stream().mapToLong(EpochMetrics::skippedCount).sum();
  }

  /** The most recent epoch, or null before the first. */
  public EpochMetrics last() {
    return epochs.isEmpty() ? null : epochs.get(epochs.size() - 1);
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "loader '%s': %d epochs, %d batches, %.0f samples/s, %d skipped",
        loader,
        epochs.size(),
        batches(),
        samplesPerSecond(),
        skipped());
  }
}
