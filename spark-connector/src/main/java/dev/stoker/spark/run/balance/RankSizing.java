package dev.stoker.spark.run.balance;

import java.io.Serializable;
import java.util.Arrays;

/**
 * How many samples every rank serves so that all yield the same batches per epoch, given the rows
 * each rank holds (which differ by at most one after balancing). With {@code dropLast} every rank
 * serves as many samples as the smallest holds, so all stop at the same multiple of {@code
 * batchSize}; the rest of each rank's rows are dropped. Without it every rank serves as many as the
 * largest holds, a smaller one wrapping around to its first rows (padding), as PyTorch's
 * DistributedSampler does; every rank then ends with the same short batch.
 */
public final class RankSizing implements Serializable {
  private static final long serialVersionUID = 1L;

  private final long[] rows;
  private final int batchSize;
  private final boolean dropLast;
  private final int samples;
  private final int batches;

  private RankSizing(long[] rows, int batchSize, boolean dropLast, int samples, int batches) {
    this.rows = rows;
    this.batchSize = batchSize;
    this.dropLast = dropLast;
    this.samples = samples;
    this.batches = batches;
  }

  /**
   * The sizing for ranks holding {@code rows[rank]} rows each.
   *
   * @throws IllegalArgumentException if some rank would get no batch (with {@code dropLast}: fewer
   *     rows than {@code batchSize}; without: no row), naming the counts and the way out
   */
  public static RankSizing of(long[] rows, int batchSize, boolean dropLast) {
    long[] copy = rows.clone();
    long total = Arrays.stream(copy).sum();
    int smallest = 0;
    int largest = 0;
    for (int r = 0; r < copy.length; r++) {
      smallest = copy[r] < copy[smallest] ? r : smallest;
      largest = copy[r] > copy[largest] ? r : largest;
    }
    int worldSize = copy.length;
    long least = copy[smallest];
    if (dropLast && least < batchSize) {
      throw new IllegalArgumentException(
          String.format(
              "rows: %d over worldSize %d leave rank %d "
                  + "with %d, fewer than batchSize %d (expected: at least worldSize x batchSize = %d rows "
                  + "with dropLast, so that every rank gets a full batch; lower batchSize or worldSize)",
              total, worldSize, smallest, least, batchSize, (long) worldSize * batchSize));
    }
    if (!dropLast && least == 0) {
      throw new IllegalArgumentException(
          String.format(
              "rows: %d over worldSize %d leave rank %d "
                  + "with none (expected: at least one row on every rank, %d in all; lower worldSize)",
              total, worldSize, smallest, worldSize));
    }
    long served = dropLast ? least : copy[largest];
    if (served > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          String.format(
              "rows: %d on rank %d (expected: at most " + "%d per rank; raise worldSize)",
              served, dropLast ? smallest : largest, Integer.MAX_VALUE));
    }
    int samples = (int) served;
    int batches = dropLast ? samples / batchSize : (samples + batchSize - 1) / batchSize;
    return new RankSizing(copy, batchSize, dropLast, samples, batches);
  }

  /** The rows of {@code total} that rank {@code rank} of {@code worldSize} holds, balanced. */
  public static long balancedRows(long total, int worldSize, int rank) {
    return total / worldSize + (rank < total % worldSize ? 1 : 0);
  }

  /** Rows per rank after balancing {@code total} rows over {@code worldSize} ranks. */
  public static long[] balancedRows(long total, int worldSize) {
    long[] rows = new long[worldSize];
    for (int r = 0; r < worldSize; r++) {
      rows[r] = balancedRows(total, worldSize, r);
    }
    return rows;
  }

  public int worldSize() {
    return rows.length;
  }

  /** Rows rank {@code rank} holds in its shard. */
  public long rows(int rank) {
    return rows[rank];
  }

  public long totalRows() {
    return Arrays.stream(rows).sum();
  }

  /** Samples every rank's dataset has. */
  public int samples() {
    return samples;
  }

  /** Batches every rank yields per epoch. */
  public int batchesPerEpoch() {
    return batches;
  }

  public int batchSize() {
    return batchSize;
  }

  public boolean dropLast() {
    return dropLast;
  }

  /** Rows of rank {@code rank} no batch holds in an epoch. */
  public long droppedRows(int rank) {
    return dropLast ? rows[rank] - (long) batches * batchSize : 0;
  }

  /** Samples rank {@code rank} repeats to reach the others' count (without dropLast). */
  public long paddedRows(int rank) {
    return dropLast ? 0 : samples - rows[rank];
  }

  public long droppedRows() {
    long total = 0;
    for (int r = 0; r < rows.length; r++) {
      total += droppedRows(r);
    }
    return total;
  }

  public long paddedRows() {
    long total = 0;
    for (int r = 0; r < rows.length; r++) {
      total += paddedRows(r);
    }
    return total;
  }
}
