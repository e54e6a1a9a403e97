package dev.stoker.spark.parquet;

import dev.stoker.loader.tokens.TokenLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts one stream of tokens into an equal span per rank, from the footers alone. The epoch's
 * documents are the row groups in the epoch's order ({@link RankPlanner}'s), each group's rows
 * shuffled in windows keyed by the group's place in that order, never by rank: so the stream of
 * tokens is the same on any number of ranks. A group's tokens are its list column's values less its
 * empty lists (the footer's value and null counts), plus an end token per row where the layout has
 * one. Rank {@code r} packs tokens {@code [r * perRank, (r + 1) * perRank)}, {@code perRank} the
 * most whole batches of rows every rank can have; the tokens past the last rank's span are dropped.
 */
public final class TokenPlanner {
  /** The shuffle key that stands for "no rank": every rank shuffles a group's windows alike. */
  static final int ANY_RANK = -1;

  private TokenPlanner() {}

  /**
   * The plan, {@code tokens.get(i)} the ids of group {@code fileOrder.get(i)}.
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
    List<RankPlanner.Group> groups = new ArrayList<>();
    List<Long> groupTokens = new ArrayList<>();
    for (int i = 0; i < fileOrder.size(); i++) {
      if (fileOrder.get(i).rowGroup().rows() > 0) {
        groups.add(fileOrder.get(i));
        groupTokens.add(tokens.get(i));
      }
    }
    List<Integer> order = orderOf(groups.size(), shuffle, seed, epoch);
    List<RankPlanner.Group> ordered = new ArrayList<>();
    long[] tokenStarts = new long[groups.size() + 1];
    long rows = 0;
    for (int i = 0; i < order.size(); i++) {
      RankPlanner.Group group = groups.get(order.get(i));
      ordered.add(group);
      rows += group.rowGroup().rows();
      tokenStarts[i + 1] =
          tokenStarts[i]
              + groupTokens.get(order.get(i))
              + (layout.eodToken() >= 0 ? group.rowGroup().rows() : 0);
    }
    long total = tokenStarts[groups.size()];
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
    long[] rowStarts = RankPlanner.starts(ordered);
    List<List<ReadRun>> ranks = new ArrayList<>();
    List<List<StreamPart>> parts = new ArrayList<>();
    List<TokenSpan> spans = new ArrayList<>();
    for (int rank = 0; rank < worldSize; rank++) {
      long from = rank * perRank;
      long to = from + perRank;
      int first = group(tokenStarts, from);
      int last = group(tokenStarts, to - 1);
      List<ReadRun> rankRuns = new ArrayList<>();
      List<StreamPart> rankParts = new ArrayList<>();
      long documents = 0;
      for (int g = first; g <= last; g++) {
        long groupRows = ordered.get(g).rowGroup().rows();
        long start = rowStarts[g];
        List<ReadRun> runs = RankPlanner.runs(ordered, rowStarts, rows, start, start + groupRows);
        int window = (int) Math.max(1, Math.min(windowRows, groupRows));
        rankParts.add(
            new StreamPart(
                new OrderSlice(start, start + groupRows, window, ANY_RANK, start, 0, groupRows),
                runs));
        rankRuns.addAll(runs);
        documents += groupRows;
      }
      ranks.add(List.copyOf(rankRuns));
      parts.add(List.copyOf(rankParts));
      spans.add(new TokenSpan(documents, from - tokenStarts[first], perRank, layout.length()));
    }
    long rowsPerRank = perRank / layout.length();
    return new ReadPlan(
        rows,
        groups.size(),
        rowsPerRank,
        (int) RankPlanner.batches(rowsPerRank, batchSize, true),
        0,
        0,
        List.copyOf(ranks),
        List.copyOf(parts),
        new ReadPlan.PackedTokens(spans, total, total - perRank * worldSize));
  }

  /** The group holding token {@code token}: the last whose first token is at or before it. */
  private static int group(long[] tokenStarts, long token) {
    int lo = 0;
    int hi = tokenStarts.length - 2;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (tokenStarts[mid] <= token) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    // Empty groups (no tokens) share their start with the next: take the one that holds tokens.
    while (lo + 1 < tokenStarts.length - 1 && tokenStarts[lo + 1] <= token) {
      lo++;
    }
    return lo;
  }

  private static List<Integer> orderOf(int groups, boolean shuffle, long seed, int epoch) {
    List<Integer> order = new ArrayList<>(groups);
    if (shuffle) {
      for (int i : dev.stoker.loader.sampler.Permutations.permutation(groups, seed, epoch)) {
        order.add(i);
      }
    } else {
      for (int i = 0; i < groups; i++) {
        order.add(i);
      }
    }
    return order;
  }
}
