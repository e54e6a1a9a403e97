package dev.stoker.loader.bench;

import java.util.Comparator;
import java.util.List;

/**
 * The rows of a {@link Sweep}, in grid order.
 *
 * @param samples samples (or stream rows) per epoch of the workload
 * @param memcpyMbPerSecond the single-thread copy bandwidth the rows are compared with
 */
public record SweepResult(long samples, int batchSize, double memcpyMbPerSecond,
    List<SweepRow> rows) {

  public SweepResult {
    rows = List.copyOf(rows);
  }

  /** The row with the most samples/s (the first of equals). */
  public SweepRow best() {
    return rows.stream().max(Comparator.comparingDouble(SweepRow::samplesPerSecond))
        .orElseThrow(() -> new IllegalStateException("sweep has no rows"));
  }
}
