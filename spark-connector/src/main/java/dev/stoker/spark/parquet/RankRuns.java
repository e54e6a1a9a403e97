package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;

/**
 * What one rank reads in an epoch: exactly {@code rows} rows, as runs of row groups in reading
 * order; for an epoch resumed mid-way, as {@code parts} (each windowed and cut as its slice says),
 * whose runs {@code runs} lists too.
 */
public record RankRuns(int rank, long rows, List<ReadRun> runs, List<StreamPart> parts)
    implements Serializable {
  public RankRuns {
    runs = List.copyOf(runs);
    parts = List.copyOf(parts);
  }

  /** A rank of a fresh epoch: its rows as runs, read and windowed from the first. */
  public RankRuns(int rank, long rows, List<ReadRun> runs) {
    this(rank, rows, runs, List.of());
  }

  /** Whether the rank streams the parts of a resumed epoch. */
  public boolean resumed() {
    return !parts.isEmpty();
  }

  /** The rows a shuffle window must hold: the largest window of a part, or {@code windowRows}. */
  public int windowRows(int windowRows) {
    if (parts.isEmpty()) {
      return (int) Math.max(1, Math.min(windowRows, rows));
    }
    int most = 1;
    for (StreamPart part : parts) {
      most = Math.max(most, part.slice().window());
    }
    return most;
  }
}
