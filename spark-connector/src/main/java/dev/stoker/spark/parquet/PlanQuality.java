package dev.stoker.spark.parquet;

import dev.stoker.loader.metrics.ShuffleQuality;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How far an epoch's plan is from a uniform random permutation, from the plan alone (nothing is
 * read): the entropy of the gaps between consecutive rows of each rank ({@link
 * ShuffleQuality#gapEntropyBits}, Mosaic's measure), each row named by its ordinal in the input,
 * over the first {@link #ROWS_PER_RANK} rows each rank delivers, beside that of a random
 * permutation of the same rows. A shuffle within windows of {@code W} rows gives about {@code
 * log2(2W)} bits; a random permutation about {@code log2} of the input's rows.
 */
public final class PlanQuality {
  /**
   * The rows of each rank measured: two default windows, the figure a window shuffle settles at,
   * for a few ms.
   */
  public static final int ROWS_PER_RANK = 1 << 14;

  private PlanQuality() {}

  /**
   * The measure of an epoch's order.
   *
   * @param gapEntropyBits the plan's, in bits
   * @param permutationBits a random permutation's of the same rows
   * @param rowsPerRank the rows of each rank measured
   */
  public record Measure(double gapEntropyBits, double permutationBits, int rowsPerRank) {
    /**
     * E.g. {@code gap entropy 13.84 bits (a random permutation: 15.02) over each rank's first
     * 16,384 rows}.
     */
    public String describe() {
      return String.format(
          Locale.ROOT,
          "gap entropy %.2f bits (a random permutation: %.2f) over each rank's first %,d rows",
          gapEntropyBits,
          permutationBits,
          rowsPerRank);
    }
  }

  /**
   * The measure of {@code plan}, read with windows of {@code windowRows} rows in the order of
   * {@code (shuffle, seed, epoch)}; null where the rows' ordinals in the input are not known.
   */
  public static Measure of(ReadPlan plan, int windowRows, boolean shuffle, long seed, int epoch) {
    int ranks = plan.ranks().size();
    long[][] rows = new long[ranks][];
    int[][] labels = new int[ranks][];
    int measured = Integer.MAX_VALUE;
    for (int r = 0; r < ranks; r++) {
      rows[r] = firstRows(plan.rank(r), windowRows, shuffle, seed, epoch);
      if (rows[r] == null) {
        return null;
      }
      labels[r] = new int[rows[r].length];
      measured = Math.min(measured, rows[r].length);
    }
    double planned = ShuffleQuality.of(rows, labels, 1).gapEntropyBits();
    double permutation =
        ShuffleQuality.ofRandomPermutation(rows, labels, 1, seed * 31 + epoch).gapEntropyBits();
    return new Measure(planned, permutation, ranks == 0 ? 0 : measured);
  }

  /** The input ordinals of a rank's first rows as it delivers them, or null if not known. */
  static long[] firstRows(RankRuns runs, int windowRows, boolean shuffle, long seed, int epoch) {
    List<StreamPart> parts = runs.streamParts(windowRows);
    int wanted = (int) Math.min(ROWS_PER_RANK, runs.streamRows());
    List<long[]> streams = new ArrayList<>();
    long perRound = 0;
    for (StreamPart part : parts) {
      perRound += part.perTurn();
    }
    for (StreamPart part : parts) {
      long count =
          runs.takesTurns() ? (wanted / perRound + 1) * part.perTurn() : part.slice().take();
      long[] delivered = partRows(part, Math.min(count, wanted), shuffle, seed, epoch);
      if (delivered == null) {
        return null;
      }
      streams.add(delivered);
    }
    return runs.takesTurns() ? inTurns(streams, parts, wanted) : concatenated(streams, wanted);
  }

  private static long[] concatenated(List<long[]> streams, int wanted) {
    long[] out = new long[wanted];
    int at = 0;
    for (long[] stream : streams) {
      int n = Math.min(stream.length, wanted - at);
      System.arraycopy(stream, 0, out, at, n);
      at += n;
    }
    return at == wanted ? out : Arrays.copyOf(out, at);
  }

  private static long[] inTurns(List<long[]> streams, List<StreamPart> parts, int wanted) {
    long[] out = new long[wanted];
    int[] next = new int[streams.size()];
    int at = 0;
    while (at < wanted) {
      boolean moved = false;
      for (int s = 0; s < streams.size() && at < wanted; s++) {
        for (int t = 0; t < parts.get(s).perTurn() && at < wanted; t++) {
          if (next[s] < streams.get(s).length) {
            out[at++] = streams.get(s)[next[s]++];
            moved = true;
          }
        }
      }
      if (!moved) {
        return Arrays.copyOf(out, at);
      }
    }
    return out;
  }

  /** A part's first {@code count} delivered rows, as input ordinals; null if not known. */
  private static long[] partRows(
      StreamPart part, long count, boolean shuffle, long seed, int epoch) {
    OrderSlice slice = part.slice();
    long n = Math.min(count, slice.take());
    long window = slice.window();
    long span =
        Math.min(slice.to() - slice.from(), (slice.skip() + n + window - 1) / window * window);
    long[] input = inputRows(part.runs(), span);
    if (input == null) {
      return null;
    }
    long[] out = new long[(int) n];
    int[] at = {0};
    slice.forFirstPositions(
        n, shuffle, seed, epoch, position -> out[at[0]++] = input[(int) (position - slice.from())]);
    return out;
  }

  /** The input ordinals of the first {@code count} rows the runs read, or null if not known. */
  private static long[] inputRows(List<ReadRun> runs, long count) {
    long[] rows = new long[(int) count];
    int at = 0;
    for (ReadRun run : runs) {
      if (at == count) {
        break;
      }
      if (run.inputRow() < 0) {
        return null;
      }
      for (long k = 0; k < run.rows() && at < count; k++) {
        rows[at++] = run.inputRow() + k;
      }
    }
    return at == count ? rows : null;
  }
}
