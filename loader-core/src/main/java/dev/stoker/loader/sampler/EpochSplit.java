package dev.stoker.loader.sampler;

/**
 * How an epoch's rows split into ranks and batches, the one rule every source follows: with {@code
 * dropLast}, each rank gets the largest multiple of {@code batchSize} that every rank can have and
 * the short tail is dropped; without it, ranks get an equal share rounded up and the last batch may
 * be short.
 */
public final class EpochSplit {
  private EpochSplit() {}

  /**
   * The rows each of {@code worldSize} ranks reads of an epoch of {@code rows} rows: {@code rows /
   * (batchSize * worldSize) * batchSize} with {@code dropLast}, else {@code ceil(rows /
   * worldSize)}.
   */
  public static long rowsPerRank(long rows, int worldSize, int batchSize, boolean dropLast) {
    Checks.positive("worldSize", worldSize);
    Checks.positive("batchSize", batchSize);
    long step = (long) batchSize * worldSize;
    return dropLast ? rows / step * batchSize : (rows + worldSize - 1) / worldSize;
  }

  /** The batches {@code rows} rows make: full ones, and the short tail unless {@code dropLast}. */
  public static long batches(long rows, int batchSize, boolean dropLast) {
    Checks.positive("batchSize", batchSize);
    return rows / batchSize + (!dropLast && rows % batchSize != 0 ? 1 : 0);
  }
}
