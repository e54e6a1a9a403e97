package dev.stoker.loader.sampler;

/**
 * One epoch's batches: a view on one index array, so a batch costs no allocation. Batch {@code b}
 * is {@code indices()[batchStart(b) .. batchStart(b) + batchLength(b))}.
 */
public final class EpochBatches {
  private final int epoch;
  private final int[] indices;
  private final int batchSize;
  private final int batchCount;

  EpochBatches(int epoch, int[] indices, int batchSize, int batchCount) {
    this.epoch = epoch;
    this.indices = indices;
    this.batchSize = batchSize;
    this.batchCount = batchCount;
  }

  public int epoch() {
    return epoch;
  }

  public int batchCount() {
    return batchCount;
  }

  /** The nominal batch size; only the last batch can be shorter (see {@link #batchLength(int)}). */
  public int batchSize() {
    return batchSize;
  }

  /** Offset of batch {@code batch} into {@link #indices()}. */
  public int batchStart(int batch) {
    Checks.index("batch", batch, "batchCount", batchCount);
    return batch * batchSize;
  }

  /** {@code batchSize}, or less for the last batch when the short tail is kept. */
  public int batchLength(int batch) {
    return Math.min(batchSize, indices.length - batchStart(batch));
  }

  /** The dataset index at row {@code row} of batch {@code batch}. */
  public int sampleIndex(int batch, int row) {
    Checks.index("row", row, "batchLength", batchLength(batch));
    return indices[batch * batchSize + row];
  }

  /**
   * The epoch's whole index array, not copied: callers must not modify it. With {@code dropLast} it
   * still holds the dropped tail after the last batch.
   */
  public int[] indices() {
    return indices;
  }
}
