package dev.stoker.tools.bench;

import java.util.Comparator;
import java.util.List;

/**
 * The rows of a {@link Sweep}, in grid order.
 *
 * @param samples samples (or stream rows) per epoch of the workload
 * @param memcpy the copy bandwidths the rows are compared with: one thread and all cores
 */
public record SweepResult(long samples, int batchSize, MemcpyLimits memcpy, List<SweepRow> rows) {

  public SweepResult {
    rows = List.copyOf(rows);
  }

  /** The single-thread copy bandwidth; NaN if unknown. */
  public double memcpyMbPerSecond() {
    return memcpy.oneThreadMbPerSecond();
  }

  /** The all-cores copy bandwidth; NaN if unknown. */
  public double memcpyAllCoresMbPerSecond() {
    return memcpy.allCoresMbPerSecond();
  }

  /** The row with the most samples/s (the first of equals). */
  public SweepRow best() {
    return rows.stream()
        .max(Comparator.comparingDouble(SweepRow::samplesPerSecond))
        .orElseThrow(() -> new IllegalStateException("sweep has no rows"));
  }
}
