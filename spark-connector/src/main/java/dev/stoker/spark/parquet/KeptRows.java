package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.Arrays;

/**
 * The rows of one data file that a table's snapshot keeps, as runs of consecutive row positions:
 * what is left of a file once a Delta deletion vector or Iceberg's position and equality deletes
 * took rows out of it. The planner counts a row group's rows with it and the readers pass over the
 * rows between its runs, so that a deleted row never reaches a window.
 *
 * <p>Runs are sorted, disjoint and not adjacent ({@code [starts[i], ends[i])}, {@code ends[i] <
 * starts[i + 1]}); a file with no rows kept has none.
 */
public final class KeptRows implements Serializable {
  private static final long serialVersionUID = 1L;

  private final long[] starts;
  private final long[] ends;

  private KeptRows(long[] starts, long[] ends) {
    this.starts = starts;
    this.ends = ends;
  }

  /**
   * The kept rows of runs {@code [starts[i], ends[i])} given in any order, overlapping or adjacent
   * runs merged.
   *
   * @throws IllegalArgumentException for a negative position or an empty or reversed run
   */
  public static KeptRows of(long[] starts, long[] ends) {
    if (starts.length != ends.length) {
      throw new IllegalArgumentException(
          starts.length + " run starts and " + ends.length + " run ends (expected: as many)");
    }
    boolean sorted = true;
    for (int i = 0; i < starts.length; i++) {
      if (starts[i] < 0 || ends[i] <= starts[i]) {
        throw new IllegalArgumentException(
            "kept rows: run ["
                + starts[i]
                + ", "
                + ends[i]
                + ") (expected: 0 <= start < end, row positions in the file)");
      }
      sorted &= i == 0 || starts[i - 1] <= starts[i];
    }
    int[] order = new int[starts.length];
    if (sorted) {
      Arrays.setAll(order, i -> i); // as tasks send them: no boxed sort of many runs
    } else {
      Integer[] boxed = new Integer[starts.length];
      Arrays.setAll(boxed, i -> i);
      Arrays.sort(boxed, (a, b) -> Long.compare(starts[a], starts[b]));
      Arrays.setAll(order, i -> boxed[i]);
    }
    long[] s = new long[order.length];
    long[] e = new long[order.length];
    int n = 0;
    for (int i : order) {
      if (n > 0 && starts[i] <= e[n - 1]) {
        e[n - 1] = Math.max(e[n - 1], ends[i]);
      } else {
        s[n] = starts[i];
        e[n] = ends[i];
        n++;
      }
    }
    return new KeptRows(Arrays.copyOf(s, n), Arrays.copyOf(e, n));
  }

  /** Every row of {@code [0, rows)}. */
  public static KeptRows all(long rows) {
    return rows == 0 ? of(new long[0], new long[0]) : of(new long[] {0}, new long[] {rows});
  }

  /** The kept rows in {@code [from, to)}. */
  public long count(long from, long to) {
    long count = 0;
    for (int i = firstEndingAfter(from); i < starts.length && starts[i] < to; i++) {
      count += Math.min(ends[i], to) - Math.max(starts[i], from);
    }
    return count;
  }

  /** Every kept row. */
  public long count() {
    return count(0, Long.MAX_VALUE);
  }

  /** One past the last kept row (0 if none). */
  public long end() {
    return ends.length == 0 ? 0 : ends[ends.length - 1];
  }

  /**
   * The rows from {@code position} on that the snapshot deleted, before the next kept row or {@code
   * limit}, whichever comes first (0 if {@code position} is kept).
   */
  public long deletedFrom(long position, long limit) {
    int i = firstEndingAfter(position);
    if (i < starts.length && starts[i] <= position) {
      return 0;
    }
    long next = i < starts.length ? starts[i] : Long.MAX_VALUE;
    return Math.max(0, Math.min(next, limit) - position);
  }

  /**
   * The kept rows from {@code position} on, one after the other, before a deleted row or {@code
   * limit} (0 if {@code position} is deleted).
   */
  public long keptFrom(long position, long limit) {
    int i = firstEndingAfter(position);
    if (i >= starts.length || starts[i] > position) {
      return 0;
    }
    return Math.max(0, Math.min(ends[i], limit) - position);
  }

  /** These rows within {@code [from, to)}. */
  public KeptRows slice(long from, long to) {
    int first = firstEndingAfter(from);
    int last = first;
    while (last < starts.length && starts[last] < to) {
      last++;
    }
    long[] s = new long[last - first];
    long[] e = new long[last - first];
    for (int i = first; i < last; i++) {
      s[i - first] = Math.max(starts[i], from);
      e[i - first] = Math.min(ends[i], to);
    }
    return new KeptRows(s, e);
  }

  /** Whether every row of {@code [0, rows)} is kept. */
  public boolean keepsAll(long rows) {
    return count(0, rows) == rows;
  }

  /** The runs, e.g. {@code [0, 7) [8, 14)}: for messages and tests. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < starts.length; i++) {
      text.append(i == 0 ? "" : " ").append('[').append(starts[i]).append(", ");
      text.append(ends[i]).append(')');
    }
    return text.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeptRows other
        && Arrays.equals(starts, other.starts)
        && Arrays.equals(ends, other.ends);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(starts) + Arrays.hashCode(ends);
  }

  /** The index of the first run that ends after {@code position}. */
  private int firstEndingAfter(long position) {
    int lo = 0;
    int hi = ends.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (ends[mid] <= position) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
