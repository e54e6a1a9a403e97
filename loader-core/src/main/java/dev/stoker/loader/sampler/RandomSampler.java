package dev.stoker.loader.sampler;

/**
 * Yields a permutation of {@code 0..datasetSize-1} that depends only on {@code (seed, epoch)}: no
 * state is carried from one epoch to the next, so any epoch can be replayed or skipped to directly.
 */
public final class RandomSampler implements Sampler {
  private final int datasetSize;
  private final long seed;

  public RandomSampler(int datasetSize, long seed) {
    this.datasetSize = Checks.nonNegative("datasetSize", datasetSize);
    this.seed = seed;
  }

  @Override
  public int length() {
    return datasetSize;
  }

  @Override
  public int[] indices(int epoch) {
    Checks.nonNegative("epoch", epoch);
    return Permutations.permutation(datasetSize, seed, epoch);
  }

  @Override
  public String toString() {
    return "RandomSampler[datasetSize=" + datasetSize + ", seed=" + seed + "]";
  }
}
