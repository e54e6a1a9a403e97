package dev.stoker.loader.sampler;

/**
 * Cuts a sampler's epoch order into batches of {@code batchSize}, the last one short unless
 * dropped.
 */
public final class BatchSampler {
  private final Sampler sampler;
  private final int batchSize;
  private final boolean dropLast;
  private final int batchCount;

  public BatchSampler(Sampler sampler, int batchSize, boolean dropLast) {
    this.sampler = Checks.notNull("sampler", sampler);
    this.batchSize = Checks.positive("batchSize", batchSize);
    this.dropLast = dropLast;
    this.batchCount = (int) EpochSplit.batches(sampler.length(), batchSize, dropLast);
  }

  /** The sampler whose order this cuts. */
  public Sampler sampler() {
    return sampler;
  }

  public int batchSize() {
    return batchSize;
  }

  public boolean dropLast() {
    return dropLast;
  }

  /**
   * {@code floor(length / batchSize)} with {@code dropLast}, {@code ceil(length / batchSize)}
   * otherwise.
   */
  public int batchCount() {
    return batchCount;
  }

  /** Samples of the short tail dropped per epoch (0 without {@code dropLast}). */
  public int droppedSamples() {
    return dropLast ? sampler.length() % batchSize : 0;
  }

  /** The batches of epoch {@code epoch}; costs one call to {@link Sampler#indices(int)}. */
  public EpochBatches epoch(int epoch) {
    Checks.nonNegative("epoch", epoch);
    int[] indices = sampler.indices(epoch);
    if (indices.length != sampler.length()) {
      throw new IllegalStateException(
          "sampler "
              + sampler
              + " returned "
              + indices.length
              + " indices for epoch "
              + epoch
              + " (expected: length() = "
              + sampler.length()
              + ")");
    }
    return new EpochBatches(epoch, indices, batchSize, batchCount);
  }

  @Override
  public String toString() {
    return "BatchSampler[sampler="
        + sampler
        + ", batchSize="
        + batchSize
        + ", dropLast="
        + dropLast
        + "]";
  }
}
