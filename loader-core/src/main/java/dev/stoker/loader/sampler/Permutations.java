package dev.stoker.loader.sampler;

import java.util.SplittableRandom;

/** Deterministic permutations of {@code 0..n-1} keyed by {@code (seed, epoch)}. */
public final class Permutations {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private Permutations() {}

  /**
   * A Fisher-Yates shuffle of {@code 0..n-1}, driven by a {@link SplittableRandom} whose seed mixes
   * {@code seed} and {@code epoch}. The seed is avalanched before the epoch is folded in, so nearby pairs
   * such as {@code (seed=1, epoch=0)} and {@code (seed=0, epoch=1)} give unrelated orders (a plain
   * {@code seed + epoch}, as PyTorch uses, would make them identical). Not bit-compatible with PyTorch.
   */
  public static int[] permutation(int n, long seed, int epoch) {
    Checks.nonNegative("n", n);
    Checks.nonNegative("epoch", epoch);
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    SplittableRandom random = new SplittableRandom(mix64(mix64(seed) ^ mix64(epoch + GOLDEN_GAMMA)));
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
