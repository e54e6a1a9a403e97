package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;

/**
 * A stretch of a rank's stream with the runs that hold its positions: what {@link RankStream}
 * reads, window by window, delivering only the slice's rows.
 *
 * @param slice the positions of the epoch's order and how they are windowed and cut
 * @param runs the row groups holding positions {@code [slice.from(), slice.to())}, in order
 */
public record StreamPart(OrderSlice slice, List<ReadRun> runs) implements Serializable {
  public StreamPart {
    runs = List.copyOf(runs);
  }
}
