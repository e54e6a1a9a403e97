package dev.stoker.loader.sampler;

/**
 * An epoch's order of sample indices; a pure function of its configuration and the epoch number.
 */
public interface Sampler {

  /** Number of indices yielded per epoch (same for every epoch). */
  int length();

  /**
   * The indices of epoch {@code epoch} (>= 0), as a new array of length {@link #length()}. Pure:
   * the same epoch always gives the same array contents, so a retried epoch replays the same order.
   *
   * @throws IllegalArgumentException if {@code epoch < 0}
   */
  int[] indices(int epoch);
}
