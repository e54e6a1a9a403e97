package dev.stoker.spark.parquet;

import dev.stoker.loader.metrics.ShuffleQuality;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

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
   * @param labels the label measure, or null where the read names no label column
   */
  public record Measure(
      double gapEntropyBits, double permutationBits, int rowsPerRank, LabelMix labels) {
    public Measure(double gapEntropyBits, double permutationBits, int rowsPerRank) {
      this(gapEntropyBits, permutationBits, rowsPerRank, null);
    }

    /**
     * E.g. {@code gap entropy 13.84 bits (a random permutation: 15.02) over each rank's first
     * 16,384 rows}, then the label measure's {@link LabelMix#describe}.
     */
    public String describe() {
      return String.format(
              Locale.ROOT,
              "gap entropy %.2f bits (a random permutation: %.2f) over each rank's first %,d rows",
              gapEntropyBits,
              permutationBits,
              rowsPerRank)
          + (labels == null ? "" : "; " + labels.describe());
    }
  }

  /**
   * How far each step's labels are from the input's mix: the mean total-variation distance of the
   * label histogram of a step's global batch (every rank's batch of the step) from the input's,
   * over the steps measured, beside a random permutation's of the same input; or why it was not
   * measured.
   *
   * @param tv the plan's mean distance (NaN where not measured)
   * @param permutationTv a random permutation's (NaN where not measured)
   * @param steps the steps measured
   * @param unmeasured why it was not measured, or null
   */
  public record LabelMix(double tv, double permutationTv, int steps, String unmeasured) {
    /** A measure that could not be taken, for {@code why}. */
    static LabelMix unmeasured(String why) {
      return new LabelMix(Double.NaN, Double.NaN, 0, why);
    }

    /**
     * E.g. {@code a step's labels 0.168 from the input's mix (a random permutation: 0.106) over 256
     * steps}.
     */
    public String describe() {
      return unmeasured != null
          ? "labels not measured: " + unmeasured
          : String.format(
              Locale.ROOT,
              "a step's labels %.3f from the input's mix (a random permutation: %.3f) over %,d "
                  + "steps",
              tv,
              permutationTv,
              steps);
    }
  }

  /**
   * The labels of {@code dataset}'s column {@code labelColumn} for the label measure: read, or why
   * they could not be; null without a column.
   */
  public static Labels labels(SourceDataset dataset) {
    String column = dataset.options().labelColumn();
    if (column == null) {
      return null;
    }
    try {
      return new Labels(column, InputLabels.read(dataset, column), null);
    } catch (InputLabels.Unmeasured e) {
      return new Labels(column, null, e.getMessage());
    }
  }

  /**
   * A read's labels, or why they could not be read.
   *
   * @param column the label column
   * @param read the labels, or null
   * @param unmeasured why not, or null
   */
  public record Labels(String column, InputLabels read, String unmeasured) {}

  /**
   * The measure of {@code plan}, read with windows of {@code windowRows} rows in the order of
   * {@code (shuffle, seed, epoch)}; null where the rows' ordinals in the input are not known.
   */
  public static Measure of(ReadPlan plan, int windowRows, boolean shuffle, long seed, int epoch) {
    return of(plan, windowRows, shuffle, seed, epoch, null, 1);
  }

  /**
   * {@link #of(ReadPlan, int, boolean, long, int)} with the label measure of {@code labels} (may be
   * null) in steps of {@code batchSize} rows a rank.
   */
  public static Measure of(
      ReadPlan plan,
      int windowRows,
      boolean shuffle,
      long seed,
      int epoch,
      Labels labels,
      int batchSize) {
    int ranks = plan.ranks().size();
    long[][] rows = new long[ranks][];
    int[][] noLabels = new int[ranks][];
    int measured = Integer.MAX_VALUE;
    for (int r = 0; r < ranks; r++) {
      rows[r] = firstRows(plan.rank(r), windowRows, shuffle, seed, epoch);
      if (rows[r] == null) {
        return null;
      }
      noLabels[r] = new int[rows[r].length];
      measured = Math.min(measured, rows[r].length);
    }
    double planned = ShuffleQuality.of(rows, noLabels, 1).gapEntropyBits();
    double permutation =
        ShuffleQuality.ofRandomPermutation(rows, noLabels, 1, seed * 31 + epoch).gapEntropyBits();
    LabelMix mix =
        labels == null
            ? null
            : labels.read() == null
                ? LabelMix.unmeasured(labels.unmeasured())
                : labelMix(rows, labels.read(), batchSize, seed * 31 + epoch);
    return new Measure(planned, permutation, ranks == 0 ? 0 : measured, mix);
  }

  /** The label measure of the ranks' first {@code rows} (input ordinals), in steps of a batch. */
  static LabelMix labelMix(long[][] rows, InputLabels input, int batchSize, long seed) {
    int steps = Integer.MAX_VALUE;
    for (long[] rank : rows) {
      steps = Math.min(steps, rank.length / batchSize);
    }
    int n = input.labels().length;
    int perStep = rows.length * batchSize;
    steps = rows.length == 0 || perStep == 0 ? 0 : Math.min(steps, n / perStep);
    if (steps == 0) {
      return LabelMix.unmeasured("no full step of " + batchSize + " rows a rank");
    }
    int[][] planned = new int[rows.length][];
    for (int r = 0; r < rows.length; r++) {
      planned[r] = new int[steps * batchSize];
      for (int i = 0; i < planned[r].length; i++) {
        planned[r][i] = input.labels()[(int) rows[r][i]];
      }
    }
    // a random permutation of the whole input: its first steps' rows, dealt as the ranks' are
    int[] shuffled = input.labels().clone();
    SplittableRandom random = new SplittableRandom(seed);
    int drawn = steps * perStep;
    for (int i = 0; i < drawn; i++) {
      int j = i + random.nextInt(n - i);
      int label = shuffled[i];
      shuffled[i] = shuffled[j];
      shuffled[j] = label;
    }
    int[][] permuted = new int[rows.length][];
    for (int r = 0; r < rows.length; r++) {
      permuted[r] = new int[steps * batchSize];
      for (int s = 0; s < steps; s++) {
        System.arraycopy(
            shuffled, s * perStep + r * batchSize, permuted[r], s * batchSize, batchSize);
      }
    }
    return new LabelMix(
        ShuffleQuality.labelTv(planned, batchSize, steps, input.counts()),
        ShuffleQuality.labelTv(permuted, batchSize, steps, input.counts()),
        steps,
        null);
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
