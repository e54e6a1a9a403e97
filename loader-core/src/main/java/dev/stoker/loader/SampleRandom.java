package dev.stoker.loader;

import java.util.random.RandomGenerator;

/**
 * The random numbers of one sample's transform: a stream keyed by {@code (seed, epoch, sample key)}
 * alone, never by the worker or the thread that runs it, so that a sample gets the same crop and
 * flip for any {@code numWorkers}, any prefetch, after a retry and after a resume. The key is the
 * sample's index in a map dataset, or its row's identity in a stream ({@link ColumnChunk#rowKey}).
 * SplitMix64 over a mix of the three: fast, and well spread even for consecutive keys. Not
 * thread-safe; the loader makes one per sample.
 */
public final class SampleRandom implements RandomGenerator {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private long state;

  private SampleRandom(long state) {
    this.state = state;
  }

  /** The stream of sample {@code key} in epoch {@code epoch} under {@code seed}. */
  public static SampleRandom of(long seed, int epoch, long key) {
    long mixed = mix(seed ^ GOLDEN);
    mixed = mix(mixed ^ (epoch * GOLDEN + 0x632BE59BD9B4E019L));
    mixed = mix(mixed ^ (key * 0xD1B54A32D192ED03L + 0x8CB92BA72F3D8DD7L));
    return new SampleRandom(mixed);
  }

  @Override
  public long nextLong() {
    state += GOLDEN;
    return mix(state);
  }

  /** The finalizer of SplitMix64 (Stafford's variant 13). */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
