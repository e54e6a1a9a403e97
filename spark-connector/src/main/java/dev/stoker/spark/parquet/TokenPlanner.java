package dev.stoker.spark.parquet;

import dev.stoker.loader.sampler.Permutations;
import dev.stoker.loader.state.Segment;
import dev.stoker.loader.tokens.TokenLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts one stream of tokens into an equal span per rank, from the footers alone. The epoch's
 * documents are the row groups in the epoch's order ({@link RankPlanner}'s), each group's rows
 * shuffled in windows keyed by the group's place in that order, never by rank: so the stream of
 * tokens is the same on any number of ranks. A group's tokens are its list column's values less its
 * empty lists (the footer's value and null counts), plus an end token per row where the layout has
 * one. Packed rows are cut every {@code length} tokens of that stream; rank {@code r} takes rows
 * {@code [r * perRank, (r + 1) * perRank)}, {@code perRank} the most whole batches every rank can
 * have, and the rows past the last rank's are dropped. A resumed epoch is cut as {@link
 * StreamSplit} cuts rows: what the ranks before left, in equal shares.
 */
public final class TokenPlanner {
  /** The shuffle key that stands for "no rank": every rank shuffles a group's windows alike. */
  static final int ANY_RANK = -1;

  private TokenPlanner() {}

  /**
   * The epoch's stream: the groups in order, where each one's rows and tokens start.
   *
   * @param tokenStarts one more than the groups: the last is the stream's tokens
   */
  private record Stream(
      List<RankPlanner.Group> groups, long[] rowStarts, long[] tokenStarts, long rows) {
    long tokens() {
      return tokenStarts[groups.size()];
    }

    /** The group holding token {@code token}: the last whose first token is at or before it. */
    int group(long token) {
      int lo = 0;
      int hi = groups.size() - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (tokenStarts[mid] <= token) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return lo;
    }
  }

  private static Stream stream(
      List<RankPlanner.Group> fileOrder,
      List<Long> tokens,
      TokenLayout layout,
      boolean shuffle,
      long seed,
      int epoch) {
    List<RankPlanner.Group> groups = new ArrayList<>();
    List<Long> groupTokens = new ArrayList<>();
    for (int i = 0; i < fileOrder.size(); i++) {
      if (fileOrder.get(i).rowGroup().rows() > 0) {
        groups.add(fileOrder.get(i));
        groupTokens.add(tokens.get(i));
      }
    }
    int[] order = identity(groups.size());
    if (shuffle) {
      order = Permutations.permutation(groups.size(), seed, epoch);
    }
    List<RankPlanner.Group> ordered = new ArrayList<>();
    long[] tokenStarts = new long[groups.size() + 1];
    long rows = 0;
    for (int i = 0; i < order.length; i++) {
      RankPlanner.Group group = groups.get(order[i]);
      ordered.add(group);
      rows += group.rowGroup().rows();
      tokenStarts[i + 1] =
          tokenStarts[i]
              + groupTokens.get(order[i])
              + (layout.eodToken() >= 0 ? group.rowGroup().rows() : 0);
    }
    return new Stream(ordered, RankPlanner.starts(ordered), tokenStarts, rows);
  }

  private static int[] identity(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }

  /**
   * The plan of a fresh epoch, {@code tokens.get(i)} the ids of group {@code fileOrder.get(i)}.
   *
   * @throws IllegalArgumentException if the input holds fewer tokens than one row of every rank's
   *     batch
   */
  public static ReadPlan plan(
      List<RankPlanner.Group> fileOrder,
      List<Long> tokens,
      TokenLayout layout,
      int worldSize,
      int batchSize,
      boolean shuffle,
      long seed,
      int epoch,
      int windowRows,
      String input) {
    Stream stream = stream(fileOrder, tokens, layout, shuffle, seed, epoch);
    long total = stream.tokens();
    long step = (long) worldSize * batchSize * layout.length();
    if (step > total) {
      throw new IllegalArgumentException(
          String.format(
              "pack=%d x batchSize=%d x worldSize=%d = %d tokens per step, but %s hold(s) %d "
                  + "token(s) (expected: at least one step, so that every rank gets a full batch; "
                  + "lower pack, batchSize or worldSize)",
              layout.length(), batchSize, worldSize, step, input, total));
    }
    long perRank = total / step * batchSize * layout.length();
    List<List<long[]>> ranges = new ArrayList<>();
    for (int rank = 0; rank < worldSize; rank++) {
      ranges.add(List.of(new long[] {rank * perRank, (rank + 1) * perRank}));
    }
    return plan(
        stream,
        layout,
        batchSize,
        windowRows,
        ranges,
        perRank / layout.length(),
        total - perRank * worldSize);
  }

  /**
   * The plan of epoch {@code epoch} resumed after {@code segments} (see {@link StreamSplit}): the
   * packed rows the ranks before left, cut again into equal shares; each rank starts in the row
   * group, the document and the token where its share does.
   */
  public static ReadPlan resumed(
      List<RankPlanner.Group> fileOrder,
      List<Long> tokens,
      TokenLayout layout,
      List<Segment> segments,
      int batchSize,
      boolean shuffle,
      long seed,
      int epoch,
      int windowRows) {
    Stream stream = stream(fileOrder, tokens, layout, shuffle, seed, epoch);
    long total = stream.tokens();
    int length = layout.length();
    // Packed rows are never shuffled: each slice delivers positions [from + skip, + take).
    StreamSplit.Plan split =
        StreamSplit.replay(total / length, segments, batchSize, true, windowRows);
    List<List<long[]>> ranges = new ArrayList<>();
    for (List<OrderSlice> rank : split.ranks()) {
      List<long[]> mine = new ArrayList<>();
      for (OrderSlice slice : rank) {
        long first = slice.from() + slice.skip();
        mine.add(new long[] {first * length, (first + slice.take()) * length});
      }
      ranges.add(mine);
    }
    long dropped = total - total / length * length + split.dropped() * length;
    return plan(stream, layout, batchSize, windowRows, ranges, split.perRank(), dropped);
  }

  /** Each rank packs its ranges of the stream's tokens, {@code rowsPerRank} rows in all. */
  private static ReadPlan plan(
      Stream stream,
      TokenLayout layout,
      int batchSize,
      int windowRows,
      List<List<long[]>> ranges,
      long rowsPerRank,
      long droppedTokens) {
    List<List<ReadRun>> ranks = new ArrayList<>();
    List<List<StreamPart>> parts = new ArrayList<>();
    List<TokenSpan> spans = new ArrayList<>();
    for (List<long[]> rank : ranges) {
      List<ReadRun> rankRuns = new ArrayList<>();
      List<StreamPart> rankParts = new ArrayList<>();
      List<Long> skips = new ArrayList<>();
      List<Long> takes = new ArrayList<>();
      long documents = 0;
      long left = 0; // tokens of the last group read past the last range taken
      for (long[] range : rank) {
        if (range[1] <= range[0]) {
          continue;
        }
        int first = stream.group(range[0]);
        int last = stream.group(range[1] - 1);
        for (int g = first; g <= last; g++) {
          rankParts.add(part(stream, g, windowRows));
          rankRuns.addAll(rankParts.get(rankParts.size() - 1).runs());
          documents += stream.groups().get(g).rowGroup().rows();
        }
        skips.add(left + range[0] - stream.tokenStarts()[first]);
        takes.add(range[1] - range[0]);
        left = stream.tokenStarts()[last + 1] - range[1];
      }
      ranks.add(List.copyOf(rankRuns));
      parts.add(List.copyOf(rankParts));
      spans.add(new TokenSpan(documents, longs(skips), longs(takes), layout.length()));
    }
    return new ReadPlan(
        stream.rows(),
        stream.groups().size(),
        rowsPerRank,
        (int) RankPlanner.batches(rowsPerRank, batchSize, true),
        0,
        0,
        List.copyOf(ranks),
        List.copyOf(parts),
        new ReadPlan.PackedTokens(spans, stream.tokens(), droppedTokens));
  }

  /** Group {@code g} whole, its rows shuffled in windows keyed by its place in the order. */
  private static StreamPart part(Stream stream, int g, int windowRows) {
    long rows = stream.groups().get(g).rowGroup().rows();
    long start = stream.rowStarts()[g];
    int window = (int) Math.max(1, Math.min(windowRows, rows));
    return new StreamPart(
        new OrderSlice(start, start + rows, window, ANY_RANK, start, 0, rows),
        RankPlanner.runs(stream.groups(), stream.rowStarts(), stream.rows(), start, start + rows));
  }

  private static long[] longs(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).toArray();
  }
}
