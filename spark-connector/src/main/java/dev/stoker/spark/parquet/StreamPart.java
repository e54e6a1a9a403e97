package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;

/**
 * A stretch of a rank's stream with the runs that hold its positions: what {@link RankStream}
 * reads, window by window, delivering only the slice's rows.
 *
 * @param slice the positions of the epoch's order and how they are windowed and cut
 * @param runs the row groups holding positions {@code [slice.from(), slice.to())}, in order
 * @param perTurn 0: the part is read whole, before the next; else the rows it gives at each of its
 *     turns, the rank's parts (streams of a {@link GlobalBatch}) taking turns
 */
public record StreamPart(OrderSlice slice, List<ReadRun> runs, int perTurn)
    implements Serializable {
  public StreamPart {
    runs = List.copyOf(runs);
    if (perTurn < 0) {
      throw new IllegalArgumentException("perTurn: " + perTurn + " (expected: >= 0)");
    }
  }

  /** A part read whole, before the next. */
  public StreamPart(OrderSlice slice, List<ReadRun> runs) {
    this(slice, runs, 0);
  }
}
