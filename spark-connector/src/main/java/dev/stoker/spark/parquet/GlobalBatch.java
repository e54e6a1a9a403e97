package dev.stoker.spark.parquet;

import dev.stoker.loader.OptionNames;
import dev.stoker.spark.options.SparkOptionTable;
import java.io.Serializable;

/**
 * A global order of {@code rows}-row batches ({@code globalBatchSize}): the epoch's order is cut
 * into {@code streams} streams, stream {@code c} giving rows {@code [c * rows / streams, (c + 1) *
 * rows / streams)} of every global batch, each stream shuffled in its own windows. A rank of {@code
 * worldSize} reads streams {@code [r * streams / worldSize, (r + 1) * streams / worldSize)} in
 * turn, its batch their share, so the sequence of global batches depends on the input, the seed and
 * the epoch alone, never on how many ranks read it.
 *
 * @param rows rows of each global batch
 * @param streams the streams the order is cut into
 */
public record GlobalBatch(int rows, int streams) implements Serializable {
  private static final String GLOBAL_BATCH_SIZE = SparkOptionTable.GLOBAL_BATCH_SIZE.name();
  private static final String ORDER_STREAMS = SparkOptionTable.ORDER_STREAMS.name();

  /**
   * Most streams: a rank holds a reader, two windows and a copy of the Hadoop settings per stream
   * it reads.
   */
  public static final int MAX_STREAMS = 256;

  public GlobalBatch {
    if (streams < 1 || streams > MAX_STREAMS) {
      throw new IllegalArgumentException(
          String.format(
              "%s: %d (expected: 1 to %d; each rank reads its share of the streams at once, each "
                  + "with its own reader and windows)",
              ORDER_STREAMS, streams, MAX_STREAMS));
    }
    if (rows < streams) {
      throw new IllegalArgumentException(
          String.format(
              "%s: %d with %s=%d (expected: at least one row of each stream in every batch, so a "
                  + "%s of at least %d, or fewer %s)",
              GLOBAL_BATCH_SIZE,
              rows,
              ORDER_STREAMS,
              streams,
              GLOBAL_BATCH_SIZE,
              streams,
              ORDER_STREAMS));
    }
  }

  /**
   * Checks that {@code worldSize} ranks can read it: a rank's batch and streams whole.
   *
   * @throws IllegalArgumentException naming the option and the world sizes that would do
   */
  public void check(int worldSize) {
    if (rows % worldSize != 0 || streams % worldSize != 0) {
      throw new IllegalArgumentException(
          String.format(
              "worldSize: %d with %s=%d and %s=%d (expected: a worldSize that divides both, so each "
                  + "rank has a whole share of every batch and of the streams; e.g. one that "
                  + "divides %d)",
              worldSize, GLOBAL_BATCH_SIZE, rows, ORDER_STREAMS, streams, gcd(rows, streams)));
    }
  }

  /** The rows each rank of {@code worldSize} takes of every global batch. */
  public int rankBatch(int worldSize) {
    check(worldSize);
    return rows / worldSize;
  }

  /** The rows stream {@code stream} gives each global batch. */
  public int streamRows(int stream) {
    return (int) (start(stream + 1) - start(stream));
  }

  /** Where stream {@code stream}'s rows start in each global batch. */
  public long start(int stream) {
    return (long) stream * rows / streams;
  }

  /** Rows of each of the streams' shuffle windows, from the read's {@code windowRows}. */
  public int streamWindow(int windowRows) {
    return Math.max(1, windowRows / streams);
  }

  /**
   * Refuses {@code batchSize} given beside it, and {@code dropLast=false} (a global order drops the
   * tail past its last whole batch: {@code dropLast} is then true).
   *
   * @throws IllegalArgumentException naming the option that cannot be
   */
  static void refuseWithRankBatch(boolean batchSizeGiven, boolean keepsLast) {
    if (batchSizeGiven) {
      throw new IllegalArgumentException(
          String.format(
              "%s and %s both given (expected: one; with %s each rank's batch is its share)",
              OptionNames.BATCH_SIZE, GLOBAL_BATCH_SIZE, GLOBAL_BATCH_SIZE));
    }
    if (keepsLast) {
      throw new IllegalArgumentException(
          String.format(
              "%s=false with %s (expected: dropLast=true; a global order yields only whole "
                  + "global batches, the tail past the last one dropped)",
              OptionNames.DROP_LAST, GLOBAL_BATCH_SIZE));
    }
  }

  private static long gcd(long a, long b) {
    return b == 0 ? a : gcd(b, a % b);
  }
}
