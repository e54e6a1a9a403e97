package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;

/**
 * What one rank reads in an epoch: exactly {@code rows} rows, as runs of row groups in reading
 * order.
 */
public record RankRuns(int rank, long rows, List<ReadRun> runs) implements Serializable {
  public RankRuns {
    runs = List.copyOf(runs);
  }
}
