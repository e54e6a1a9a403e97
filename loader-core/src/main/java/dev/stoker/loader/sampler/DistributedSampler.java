package dev.stoker.loader.sampler;

/**
 * One rank's share of a dataset, with PyTorch {@code DistributedSampler} semantics.
 *
 * <p>The global order is {@code Permutations.permutation(n, seed, epoch)} if shuffling, else {@code
 * 0..n-1}; it is identical on every rank, which is what makes the shares disjoint. It is then made
 * a multiple of {@code worldSize}: truncated when {@code dropLast}, otherwise padded by wrapping
 * around to its start (repeatedly if needed). Rank {@code r} takes positions {@code r, r +
 * worldSize, r + 2*worldSize, ...}. Every rank therefore yields the same count, so collective
 * operations never wait on a rank that ran out.
 *
 * <p>A sampler may start at position {@code start} of the global order (a resumed epoch): it then
 * splits positions {@code [start, datasetSize)} the same way, rank {@code r} taking {@code start +
 * r, start + r + worldSize, ...}, padding (with positions from the order's start) or truncating
 * what is left. Since {@code k} batches on each of {@code worldSize} ranks consume exactly
 * positions {@code [start, start + k * batchSize * worldSize)}, what was consumed is always a
 * prefix of the global order, whatever world sizes came before: a resume with the same world size
 * yields the same batches an uninterrupted epoch would.
 */
public final class DistributedSampler implements Sampler {
  private final int datasetSize;
  private final int rank;
  private final int worldSize;
  private final boolean shuffle;
  private final long seed;
  private final boolean dropLast;
  private final int start;
  private final int numSamples;
  private final long total;

  public DistributedSampler(
      int datasetSize, int rank, int worldSize, boolean shuffle, long seed, boolean dropLast) {
    this(datasetSize, 0, rank, worldSize, shuffle, seed, dropLast);
  }

  /** Rank {@code rank}'s share of positions {@code [start, datasetSize)} of the global order. */
  public DistributedSampler(
      int datasetSize,
      int start,
      int rank,
      int worldSize,
      boolean shuffle,
      long seed,
      boolean dropLast) {
    this.datasetSize = Checks.nonNegative("datasetSize", datasetSize);
    if (start < 0 || start > datasetSize) {
      throw new IllegalArgumentException(
          "start: " + start + " (expected: 0 <= start <= datasetSize = " + datasetSize + ")");
    }
    this.start = start;
    this.worldSize = Checks.positive("worldSize", worldSize);
    this.rank = Checks.index("rank", rank, "worldSize", worldSize);
    this.shuffle = shuffle;
    this.seed = seed;
    this.dropLast = dropLast;
    int left = datasetSize - start;
    int floor = left / worldSize;
    this.numSamples = dropLast || left % worldSize == 0 ? floor : floor + 1;
    this.total =
        (long) numSamples * worldSize; // may exceed Integer.MAX_VALUE when padding a huge dataset
  }

  @Override
  public int length() {
    return numSamples;
  }

  @Override
  public int[] indices(int epoch) {
    Checks.nonNegative("epoch", epoch);
    int[] global = shuffle ? Permutations.permutation(datasetSize, seed, epoch) : null;
    if (global != null && worldSize == 1 && start == 0 && numSamples == datasetSize) {
      return global; // the whole order is this rank's: no second array
    }
    int[] out = new int[numSamples];
    for (int k = 0; k < numSamples; k++) {
      // Position in the padded global order; wrapping (mod n) is the padding, and is a no-op when
      // truncating.
      int position = (int) ((start + rank + (long) k * worldSize) % datasetSize);
      out[k] = global == null ? position : global[position];
    }
    return out;
  }

  public int rank() {
    return rank;
  }

  public int worldSize() {
    return worldSize;
  }

  /** The first position of the global order this sampler splits (0 unless resumed). */
  public int start() {
    return start;
  }

  /** Indices added by wrapping around, over all ranks (0 with {@code dropLast}). */
  public int paddedCount() {
    return (int) Math.max(0, total - (datasetSize - start));
  }

  /** Indices of the global order that no rank gets, over all ranks (0 without {@code dropLast}). */
  public int droppedCount() {
    return (int) Math.max(0, datasetSize - start - total);
  }

  @Override
  public String toString() {
    return "DistributedSampler[datasetSize="
        + datasetSize
        + (start == 0 ? "" : ", start=" + start)
        + ", rank="
        + rank
        + ", worldSize="
        + worldSize
        + ", shuffle="
        + shuffle
        + ", seed="
        + seed
        + ", dropLast="
        + dropLast
        + "]";
  }
}
