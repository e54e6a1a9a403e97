package dev.stoker.loader.state;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a run of a loader stands, as a value: in epoch {@code epoch} of the order keyed by {@code
 * (seed, shuffle)}, the epoch ran in {@code segments}, each on some number of ranks that each
 * consumed some rows of their share (a run stopped and resumed on another number of ranks adds a
 * segment); the last segment is the one in progress. Ranks move in step (data-parallel training
 * takes one batch per rank per step), so a segment's ranks all consumed the same rows, and the
 * epoch's remaining rows are a pure function of the input, the options and the segments: a resume
 * on any number of ranks splits exactly them.
 *
 * <p>{@link #toString()} prints it as a short string ({@code stoker1:} and URL-safe base64 of a
 * compact binary with a CRC32) that {@link #parse} reads back; store it next to a model checkpoint.
 *
 * @param seed the shuffle seed
 * @param shuffle whether the order is shuffled
 * @param epoch the epoch in progress (the state after an epoch's last batch is the next epoch's
 *     start)
 * @param orderEpoch the epoch whose order the rows were planned in: {@code epoch} for a loader and
 *     a {@code format("stoker")} read; for a run streaming Parquet files, its read's epoch (it
 *     plans the row groups once and shuffles within windows by {@code epoch})
 * @param batchSize rows per batch
 * @param dropLast whether the short tail is dropped
 * @param windowRows rows of a streamed read's shuffle window (0: an indexed source, which has none)
 * @param segments the stretches of the epoch so far, the current one last
 * @param input the fingerprint of the input the order was computed from
 * @param orderStreams 0 for an order of ranks; else the number of streams of a global order ({@code
 *     globalBatchSize}), whose global batch is {@code batchSize x worldSize} of any segment: each
 *     segment's {@code batchSize} is then its own ranks' share of it
 */
public record LoaderState(
    long seed,
    boolean shuffle,
    int epoch,
    int orderEpoch,
    int batchSize,
    boolean dropLast,
    int windowRows,
    List<Segment> segments,
    InputFingerprint input,
    int orderStreams)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The format version this Stoker writes and reads. */
  public static final int FORMAT_VERSION = 1;

  /** What every state string of this format starts with. */
  public static final String PREFIX = "stoker" + FORMAT_VERSION + ":";

  public LoaderState {
    nonNegative("epoch", epoch);
    nonNegative("orderEpoch", orderEpoch);
    positive("batchSize", batchSize);
    nonNegative("windowRows", windowRows);
    segments = List.copyOf(segments);
    if (segments.isEmpty()) {
      throw new IllegalArgumentException("segments: none (expected: at least the current one)");
    }
    Objects.requireNonNull(input, "input");
    nonNegative("orderStreams", orderStreams);
  }

  /** A state of an order of ranks ({@code orderStreams} 0). */
  public LoaderState(
      long seed,
      boolean shuffle,
      int epoch,
      int orderEpoch,
      int batchSize,
      boolean dropLast,
      int windowRows,
      List<Segment> segments,
      InputFingerprint input) {
    this(seed, shuffle, epoch, orderEpoch, batchSize, dropLast, windowRows, segments, input, 0);
  }

  /** This state, of a global order of {@code streams} streams (see {@link #orderStreams}). */
  public LoaderState inStreams(int streams) {
    return new LoaderState(
        seed,
        shuffle,
        epoch,
        orderEpoch,
        batchSize,
        dropLast,
        windowRows,
        segments,
        input,
        streams);
  }

  /** The rows of each step over all ranks: {@code batchSize x worldSize}. */
  public long globalBatchRows() {
    return (long) batchSize * worldSize();
  }

  /** The start of epoch {@code epoch} on {@code worldSize} ranks: nothing of it consumed yet. */
  public static LoaderState startOf(
      long seed,
      boolean shuffle,
      int epoch,
      int worldSize,
      int batchSize,
      boolean dropLast,
      int windowRows,
      InputFingerprint input) {
    return startOf(seed, shuffle, epoch, epoch, worldSize, batchSize, dropLast, windowRows, input);
  }

  /** {@link #startOf}, the rows planned in the order of epoch {@code orderEpoch}. */
  public static LoaderState startOf(
      long seed,
      boolean shuffle,
      int epoch,
      int orderEpoch,
      int worldSize,
      int batchSize,
      boolean dropLast,
      int windowRows,
      InputFingerprint input) {
    return new LoaderState(
        seed,
        shuffle,
        epoch,
        orderEpoch,
        batchSize,
        dropLast,
        windowRows,
        List.of(new Segment(worldSize, 0)),
        input);
  }

  /** The current segment: the ranks that took the state. */
  public Segment current() {
    return segments.get(segments.size() - 1);
  }

  /** The world size the state was taken at. */
  public int worldSize() {
    return current().worldSize();
  }

  /** Batches each rank of the current segment has handed out. */
  public long batches() {
    return current().rows() / batchSize;
  }

  /** Rows consumed on all ranks before the current segment began. */
  public long startRow() {
    long rows = 0;
    for (Segment segment : segments.subList(0, segments.size() - 1)) {
      rows += segment.allRanks();
    }
    return rows;
  }

  /** Rows of the epoch consumed on every rank together. */
  public long consumedRows() {
    return startRow() + current().allRanks();
  }

  /** This state after {@code more} more batches on each rank of the current segment. */
  public LoaderState plusBatches(long more) {
    nonNegative("more", more);
    return withCurrent(
        new Segment(
            worldSize(),
            Math.addExact(current().rows(), Math.multiplyExact(more, (long) batchSize))));
  }

  /**
   * This state resumed on {@code worldSize} ranks: a new segment, nothing of it consumed yet (the
   * current one kept if it consumed nothing).
   */
  public LoaderState resumedOn(int worldSize) {
    List<Segment> all = new ArrayList<>(segments);
    if (current().rows() == 0) {
      all.remove(all.size() - 1);
    }
    all.add(new Segment(worldSize, 0));
    int rankBatch = batchSize;
    if (orderStreams > 0) {
      long global = globalBatchRows();
      if (worldSize <= 0 || global % worldSize != 0 || orderStreams % worldSize != 0) {
        throw new IllegalArgumentException(
            String.format(
                "worldSize: %d to resume a global order of %d-row batches in %d streams "
                    + "(expected: a worldSize that divides both, e.g. one that divides %d)",
                worldSize, global, orderStreams, gcd(global, orderStreams)));
      }
      rankBatch = (int) (global / worldSize);
    }
    return new LoaderState(
        seed,
        shuffle,
        epoch,
        orderEpoch,
        rankBatch,
        dropLast,
        windowRows,
        all,
        input,
        orderStreams);
  }

  private static long gcd(long a, long b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  private LoaderState withCurrent(Segment segment) {
    List<Segment> all = new ArrayList<>(segments);
    all.set(all.size() - 1, segment);
    return new LoaderState(
        seed,
        shuffle,
        epoch,
        orderEpoch,
        batchSize,
        dropLast,
        windowRows,
        all,
        input,
        orderStreams);
  }

  /**
   * Reads a string {@link #toString()} printed.
   *
   * @throws BadStateException if it is not one (another format version, corrupted, cut short),
   *     naming what is wrong
   */
  public static LoaderState parse(String text) {
    return StateCodec.decode(text);
  }

  /**
   * E.g. {@code epoch 3, 11520 row(s) consumed (1280 before, then 40 batch(es) x 64 x 4 rank(s))}.
   */
  public String describe() {
    long before = startRow();
    return "epoch "
        + epoch
        + ", "
        + consumedRows()
        + " row(s) consumed ("
        + (before > 0 ? before + " before, then " : "")
        + batches()
        + " batch(es) x "
        + batchSize
        + " x "
        + worldSize()
        + " rank(s))";
  }

  /** The state as a short string, {@code stoker1:...}, that {@link #parse} reads back. */
  @Override
  public String toString() {
    return StateCodec.encode(this);
  }

  private static void nonNegative(String name, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
    }
  }

  private static void positive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
    }
  }
}
