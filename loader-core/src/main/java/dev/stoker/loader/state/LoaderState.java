package dev.stoker.loader.state;

import java.io.Serializable;
import java.util.Objects;

/**
 * Where a run of a loader stands, as a value: in epoch {@code epoch} of the order keyed by {@code
 * (seed, shuffle)}, the first {@code startRow} positions of the epoch's order were consumed before
 * the loader that took the state started, and it has since handed out {@code batches} batches of
 * {@code batchSize} on each of {@code worldSize} ranks. A loader's ranks move in step (data-parallel
 * training takes one batch per rank per step), so the rows consumed are always positions {@code [0,
 * consumedRows())} of the epoch's order, and a resume on any number of ranks splits the rest.
 *
 * <p>{@link #toString()} prints it as a short string ({@code stoker1:} and URL-safe base64 of a
 * compact binary with a CRC32) that {@link #parse} reads back; store it next to a model checkpoint.
 *
 * @param seed the shuffle seed
 * @param shuffle whether the order is shuffled
 * @param epoch the epoch in progress (the state after an epoch's last batch is the next epoch's
 *     start)
 * @param startRow positions of the epoch's order consumed before this loader started
 * @param batches batches each rank has handed out since
 * @param worldSize the ranks that took them
 * @param batchSize rows per batch
 * @param dropLast whether the short tail is dropped
 * @param input the fingerprint of the input the order was computed from
 */
public record LoaderState(long seed, boolean shuffle, int epoch, long startRow, int batches,
    int worldSize, int batchSize, boolean dropLast, InputFingerprint input)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The format version this Stoker writes and reads. */
  public static final int FORMAT_VERSION = 1;
  /** What every state string of this format starts with. */
  public static final String PREFIX = "stoker" + FORMAT_VERSION + ":";

  public LoaderState {
    nonNegative("epoch", epoch);
    nonNegative("startRow", startRow);
    nonNegative("batches", batches);
    positive("worldSize", worldSize);
    positive("batchSize", batchSize);
    Objects.requireNonNull(input, "input");
  }

  /** The start of epoch {@code epoch}: nothing of it consumed yet. */
  public static LoaderState startOf(long seed, boolean shuffle, int epoch, int worldSize,
      int batchSize, boolean dropLast, InputFingerprint input) {
    return new LoaderState(seed, shuffle, epoch, 0, 0, worldSize, batchSize, dropLast, input);
  }

  /** Positions of the epoch's order consumed on every rank together. */
  public long consumedRows() {
    return startRow + (long) batches * batchSize * worldSize;
  }

  /** This state after {@code more} more batches on each rank. */
  public LoaderState plusBatches(int more) {
    nonNegative("more", more);
    return new LoaderState(seed, shuffle, epoch, startRow, Math.addExact(batches, more), worldSize,
        batchSize, dropLast, input);
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

  /** E.g. {@code epoch 3, 12800 of the order's rows consumed (200 batches x 64 x 1 rank)}. */
  public String describe() {
    return "epoch " + epoch + ", " + consumedRows() + " row(s) of its order consumed ("
        + (startRow > 0 ? startRow + " before, then " : "") + batches + " batch(es) x "
        + batchSize + " x " + worldSize + " rank(s))";
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
