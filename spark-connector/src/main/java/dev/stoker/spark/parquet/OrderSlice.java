package dev.stoker.spark.parquet;

import dev.stoker.loader.sampler.Permutations;
import java.io.Serializable;
import java.util.function.LongConsumer;

/**
 * A stretch of a rank's stream, in positions of the epoch's row order: positions {@code [from, to)}
 * (those past the input's rows wrap to its start: padding) are read in windows of {@code window}
 * rows, window {@code i} shuffled by {@code (seed, seedRank, firstWindow + i, epoch)}, and rows
 * {@code [skip, skip + take)} of the windows' concatenated order are delivered. A fresh rank is one
 * slice ({@code seedRank} its rank, nothing skipped); a resumed rank's stream is the slices of the
 * rows its predecessors left, each shuffled as it would have been, so a resume on as many ranks
 * yields the uninterrupted stream's rows in its order.
 *
 * <p>Kept normal: {@code skip < window} (whole windows before it are cut from {@code from}), and
 * {@code to} ends at the window that holds the last row delivered.
 */
public record OrderSlice(
    long from, long to, int window, int seedRank, long firstWindow, int skip, long take)
    implements Serializable {
  public OrderSlice {
    if (from < 0 || to < from || window <= 0 || skip < 0 || take < 0 || skip + take > to - from) {
      throw new IllegalArgumentException(
          "slice ["
              + from
              + ", "
              + to
              + ") window "
              + window
              + " skip "
              + skip
              + " take "
              + take
              + " (expected: 0 <= from <= to, window > 0, "
              + "skip + take <= to - from)");
    }
  }

  /** All of positions {@code [from, to)} in windows of {@code min(windowRows, to - from)}. */
  static OrderSlice whole(long from, long to, int windowRows, int seedRank) {
    int window = (int) Math.max(1, Math.min(windowRows, to - from));
    return new OrderSlice(from, to, window, seedRank, 0, 0, to - from);
  }

  /** The slice without its first {@code rows} delivered rows. */
  OrderSlice after(long rows) {
    if (rows < 0 || rows > take) {
      throw new IllegalArgumentException(
          "rows: " + rows + " (expected: 0 <= rows <= take = " + take + ")");
    }
    long skipped = skip + rows;
    long windows = skipped / window;
    return new OrderSlice(
        from + windows * window,
        to,
        window,
        seedRank,
        firstWindow + windows,
        (int) (skipped - windows * window),
        take - rows);
  }

  /** The slice's first {@code rows} delivered rows, its windows after them not read. */
  OrderSlice head(long rows) {
    if (rows < 0 || rows > take) {
      throw new IllegalArgumentException(
          "rows: " + rows + " (expected: 0 <= rows <= take = " + take + ")");
    }
    long end = Math.min(to, from + (skip + rows + window - 1) / window * window);
    return new OrderSlice(from, Math.max(end, from), window, seedRank, firstWindow, skip, rows);
  }

  /** Rows of window {@code i} (the last may be short). */
  int windowRows(long i) {
    return (int) Math.min(window, to - from - i * window);
  }

  /** Windows read. */
  long windows() {
    return (to - from + window - 1) / window;
  }

  /** The order of window {@code i}'s rows (null: as read), as {@link RankStream} delivers them. */
  int[] order(long i, boolean shuffle, long seed, int epoch) {
    return shuffle
        ? Permutations.windowPermutation(windowRows(i), seed, seedRank, firstWindow + i, epoch)
        : null;
  }

  /** Each delivered position of the epoch's order (before wrapping), in delivery order. */
  void forEachPosition(boolean shuffle, long seed, int epoch, LongConsumer positions) {
    forEachPosition(0, take, shuffle, seed, epoch, positions);
  }

  /** The first {@code count} delivered positions (all if fewer), in delivery order. */
  void forFirstPositions(
      long count, boolean shuffle, long seed, int epoch, LongConsumer positions) {
    forEachPosition(0, Math.min(count, take), shuffle, seed, epoch, positions);
  }

  /** Delivered positions at or past {@code position}; reads only the windows that hold them. */
  long deliveredFrom(long position, boolean shuffle, long seed, int epoch) {
    if (to <= position) {
      return 0;
    }
    long first = Math.max(0, (position - from) / window);
    long[] count = new long[1];
    forEachPosition(first, take, shuffle, seed, epoch, p -> count[0] += p >= position ? 1 : 0);
    return count[0];
  }

  private void forEachPosition(
      long firstIndex, long count, boolean shuffle, long seed, int epoch, LongConsumer positions) {
    long end = skip + count;
    long index = firstIndex * window;
    for (long i = firstIndex; i < windows() && index < end; i++) {
      int rows = windowRows(i);
      int[] order = order(i, shuffle, seed, epoch);
      long start = from + i * window;
      for (int r = 0; r < rows && index < end; r++, index++) {
        if (index >= skip) {
          positions.accept(start + (order == null ? r : order[r]));
        }
      }
    }
  }
}
