package dev.stoker.tools.bench;

import dev.stoker.loader.metrics.Verdict;
import java.util.List;

/**
 * The result of one configuration of a {@link Sweep}, over its repeated runs.
 *
 * @param samplesPerSecond median over the runs
 * @param mbPerSecond output MB/s at the median
 * @param ratioToMemcpy {@code mbPerSecond} over the single-thread memcpy MB/s (NaN if unknown)
 * @param ratioToAllCores {@code mbPerSecond} over the all-cores memcpy MB/s (NaN if unknown)
 * @param median the run at the median (the lower middle one for an even count); its verdict and
 *     allocation are the row's
 * @param runs every run, in the order they ran
 */
public record SweepRow(
    SweepConfig config,
    double samplesPerSecond,
    double mbPerSecond,
    double ratioToMemcpy,
    double ratioToAllCores,
    BenchmarkResult median,
    List<BenchmarkResult> runs) {

  public SweepRow {
    runs = List.copyOf(runs);
  }

  public Verdict verdict() {
    return median.verdict();
  }

  /** Heap bytes allocated per batch in the median run, epoch starts left out; NaN if unknown. */
  public double allocatedBytesPerBatch() {
    return median.allocatedBytesPerBatch();
  }

  /** Heap bytes allocated per epoch boundary in the median run; NaN if none or unknown. */
  public double allocatedBytesPerEpochBoundary() {
    return median.allocatedBytesPerEpochBoundary();
  }

  /** Garbage collections during the median run's measured window; -1 if unknown. */
  public long gcCollections() {
    return median.usage().gcCollections();
  }
}
