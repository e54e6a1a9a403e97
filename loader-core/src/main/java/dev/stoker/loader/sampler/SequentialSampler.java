package dev.stoker.loader.sampler;

/** Yields {@code 0, 1, ..., datasetSize - 1} every epoch. */
public final class SequentialSampler implements Sampler {
  private final int datasetSize;

  public SequentialSampler(int datasetSize) {
    this.datasetSize = Checks.nonNegative("datasetSize", datasetSize);
  }

  @Override
  public int length() {
    return datasetSize;
  }

  @Override
  public int[] indices(int epoch) {
    Checks.nonNegative("epoch", epoch);
    int[] out = new int[datasetSize];
    for (int i = 0; i < datasetSize; i++) {
      out[i] = i;
    }
    return out;
  }

  @Override
  public String toString() {
    return "SequentialSampler[datasetSize=" + datasetSize + "]";
  }
}
