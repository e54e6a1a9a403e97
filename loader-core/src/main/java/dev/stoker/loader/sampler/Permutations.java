package dev.stoker.loader.sampler;

import java.util.SplittableRandom;

/** Deterministic permutations of {@code 0..n-1} keyed by {@code (seed, epoch)}. */
public final class Permutations {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private Permutations() {}

  /**
   * A Fisher-Yates shuffle of {@code 0..n-1}, driven by a {@link SplittableRandom} whose seed mixes
   * {@code seed} and {@code epoch}. The seed is avalanched before the epoch is folded in, so nearby
   * pairs such as {@code (seed=1, epoch=0)} and {@code (seed=0, epoch=1)} give unrelated orders (a
   * plain {@code seed + epoch}, as PyTorch uses, would make them identical). Not bit-compatible
   * with PyTorch.
   */
  /**
   * The order of window {@code window} of rank {@code rank}'s stream of an epoch: a permutation of
   * its {@code rows} keyed by {@code (seed, rank, window, epoch)}; {@code window = -1} stands for
   * the rank's rows all at once (a cached rank, shuffled whole).
   */
  public static int[] windowPermutation(int rows, long seed, int rank, long window, int epoch) {
    return permutation(rows, windowSeed(seed, rank, window), epoch);
  }

  /** The seed of window {@code window} of rank {@code rank}, mixed SplitMix64-style. */
  static long windowSeed(long seed, int rank, long window) {
    long z = seed ^ 0x9E3779B97F4A7C15L * (rank + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z += 0x94D049BB133111EBL * (window + 1);
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  public static int[] permutation(int n, long seed, int epoch) {
    Checks.nonNegative("n", n);
    Checks.nonNegative("epoch", epoch);
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    SplittableRandom random =
        new SplittableRandom(mix64(mix64(seed) ^ mix64(epoch + GOLDEN_GAMMA)));
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
    return out;
  }

  /** The SplitMix64 finalizer: a bijection on longs with good avalanche. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
