package dev.stoker.spark.parquet;

import dev.stoker.loader.sampler.EpochSplit;
import dev.stoker.loader.state.Segment;
import java.util.ArrayList;
import java.util.List;

/**
 * Which positions of an epoch's row order each rank streams, as {@link OrderSlice}s: fresh (rank
 * {@code r} takes {@code [r * perRank, (r + 1) * perRank)}, as {@link RankPlanner} cuts), or
 * resumed through the segments of a {@link dev.stoker.loader.state.LoaderState}: each segment's
 * ranks consumed the same rows of their streams, and what they left (in rank order, then the rows
 * no rank was given) is cut again into equal contiguous shares for the next segment's ranks. A pure
 * function of its arguments.
 */
public final class StreamSplit {
  private StreamSplit() {}

  /**
   * Every rank's slices and the rows no rank streams.
   *
   * @param ranks each rank's slices, in stream order
   * @param tail slices no rank streams: {@code dropLast}'s tail
   * @param perRank rows every rank streams
   */
  public record Plan(List<List<OrderSlice>> ranks, List<OrderSlice> tail, long perRank) {
    /** Rows no rank streams. */
    public long dropped() {
      return tail.stream().mapToLong(OrderSlice::take).sum();
    }

    /**
     * Rows streamed as padding: positions at or past the input's {@code rows}, which wrap to the
     * order's first rows again.
     */
    public long padded(long rows, boolean shuffle, long seed, int epoch) {
      long padded = 0;
      for (List<OrderSlice> rank : ranks) {
        for (OrderSlice slice : rank) {
          padded += slice.deliveredFrom(rows, shuffle, seed, epoch);
        }
      }
      return padded;
    }
  }

  /**
   * Rank {@code r} of {@code worldSize} takes positions {@code [r * perRank, (r + 1) * perRank)}.
   */
  public static Plan fresh(
      long rows, int worldSize, int batchSize, boolean dropLast, int windowRows) {
    long perRank = EpochSplit.rowsPerRank(rows, worldSize, batchSize, dropLast);
    List<List<OrderSlice>> ranks = new ArrayList<>();
    for (int r = 0; r < worldSize; r++) {
      ranks.add(
          perRank == 0
              ? List.of()
              : List.of(OrderSlice.whole(r * perRank, (r + 1) * perRank, windowRows, r)));
    }
    long end = worldSize * perRank;
    List<OrderSlice> tail =
        end < rows ? List.of(OrderSlice.whole(end, rows, windowRows, worldSize)) : List.of();
    return new Plan(ranks, tail, perRank);
  }

  /** The plan of the last segment, with what that segment consumed already taken off. */
  public static Plan replay(
      long rows, List<Segment> segments, int batchSize, boolean dropLast, int windowRows) {
    Plan plan = fresh(rows, segments.get(0).worldSize(), batchSize, dropLast, windowRows);
    for (int i = 1; i < segments.size(); i++) {
      plan =
          split(
              left(plan, segments.get(i - 1).rows()),
              rows,
              segments.get(i).worldSize(),
              batchSize,
              dropLast,
              windowRows);
    }
    return consumed(plan, segments.get(segments.size() - 1).rows());
  }

  /** What each rank has still to stream after consuming {@code rows} of its stream. */
  static Plan consumed(Plan plan, long rows) {
    if (rows == 0) {
      return plan;
    }
    List<List<OrderSlice>> ranks = new ArrayList<>();
    for (List<OrderSlice> rank : plan.ranks()) {
      ranks.add(drop(rank, rows));
    }
    return new Plan(ranks, plan.tail(), plan.perRank() - rows);
  }

  /** The rows a plan's ranks left after consuming {@code rows} each, then its tail. */
  static List<OrderSlice> left(Plan plan, long rows) {
    List<OrderSlice> left = new ArrayList<>();
    for (List<OrderSlice> rank : plan.ranks()) {
      left.addAll(drop(rank, rows));
    }
    left.addAll(plan.tail());
    return left;
  }

  private static List<OrderSlice> drop(List<OrderSlice> slices, long rows) {
    long total = slices.stream().mapToLong(OrderSlice::take).sum();
    if (rows > total) {
      throw new IllegalArgumentException(
          "rows consumed per rank: "
              + rows
              + " (expected: at most "
              + total
              + ", the rows each rank streams; the state is not of this input)");
    }
    List<OrderSlice> out = new ArrayList<>();
    long skip = rows;
    for (OrderSlice slice : slices) {
      if (skip >= slice.take()) {
        skip -= slice.take();
        continue;
      }
      out.add(slice.after(skip));
      skip = 0;
    }
    return out;
  }

  /**
   * Cuts {@code left} (in order) into {@code worldSize} equal contiguous shares, padding the last
   * shares without {@code dropLast} with the epoch order's first rows, as positions past its end
   * ({@code rows + i} is row {@code i} again), so padding is always a position past the rows.
   */
  static Plan split(
      List<OrderSlice> left,
      long rows,
      int worldSize,
      int batchSize,
      boolean dropLast,
      int windowRows) {
    long total = left.stream().mapToLong(OrderSlice::take).sum();
    long perRank = EpochSplit.rowsPerRank(total, worldSize, batchSize, dropLast);
    List<List<OrderSlice>> ranks = new ArrayList<>();
    for (int r = 0; r < worldSize; r++) {
      long start = r * perRank;
      long end = start + perRank;
      List<OrderSlice> rank = cut(left, Math.min(start, total), Math.min(end, total));
      if (end > total) {
        long from = Math.max(start, total) - total;
        rank = new ArrayList<>(rank);
        rank.add(OrderSlice.whole(rows + from, rows + end - total, windowRows, worldSize + r));
      }
      ranks.add(List.copyOf(rank));
    }
    List<OrderSlice> tail = cut(left, Math.min(worldSize * perRank, total), total);
    return new Plan(ranks, tail, perRank);
  }

  /** Rows {@code [start, end)} of the concatenation of {@code slices}. */
  private static List<OrderSlice> cut(List<OrderSlice> slices, long start, long end) {
    List<OrderSlice> out = new ArrayList<>();
    long at = 0;
    for (OrderSlice slice : slices) {
      long sliceEnd = at + slice.take();
      long a = Math.max(start, at);
      long b = Math.min(end, sliceEnd);
      if (a < b) {
        out.add(slice.after(a - at).head(b - a));
      }
      at = sliceEnd;
    }
    return out;
  }
}
