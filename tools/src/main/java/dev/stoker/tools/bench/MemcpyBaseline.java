package dev.stoker.tools.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The machine's copy bandwidth for the gather the {@code copy} workload does: random samples from a
 * source larger than the caches, laid out as {@code copy} lays out its images, copied into a batch
 * buffer with the same bulk call as {@code SampleWriter.copyRaw}. With one thread it is the ceiling
 * of one loading thread; with as many threads as cores, each gathering the whole source in its own
 * random order into its own batch buffer, it is the ceiling of the machine. A loader at a ratio
 * near 1 to the second has nothing left to gain.
 */
public final class MemcpyBaseline {
  /** Source size: larger than any last-level cache. */
  public static final long SOURCE_BYTES = 256L << 20;

  public static final int BATCH_SIZE = 64;
  static final int WARMUP_ROUNDS = 2;
  static final int TIMED_ROUNDS = 7;

  private MemcpyBaseline() {}

  /** Median MB/s (10^6 bytes) of one thread for the {@code copy} samples in batches of 64. */
  public static double measure() {
    return measure(ReferenceWorkloads.IMAGE_BYTES, BATCH_SIZE, TIMED_ROUNDS);
  }

  /**
   * Median MB/s of one thread over {@code rounds} timed rounds, after a warm-up; each round copies
   * every sample of a source of at least {@link #SOURCE_BYTES}, in a new random order, {@code
   * batchSize} at a time into one batch buffer.
   */
  public static double measure(int sampleBytes, int batchSize, int rounds) {
    return measureLimits(sampleBytes, batchSize, rounds, 1).oneThreadMbPerSecond();
  }

  /**
   * Median aggregate MB/s of as many threads as cores ({@code availableProcessors()}) for the
   * {@code copy} workload's samples in batches of 64.
   */
  public static double measureAllCores() {
    return measureAllCores(ReferenceWorkloads.IMAGE_BYTES, BATCH_SIZE, TIMED_ROUNDS);
  }

  /**
   * Median aggregate MB/s of as many threads as cores over {@code rounds} timed rounds, after a
   * warm-up. In each round every thread copies every sample of the shared source, in its own random
   * order, into its own batch buffer; the threads start together and the round's figure is the
   * bytes of all of them over the time until the last one is done.
   */
  public static double measureAllCores(int sampleBytes, int batchSize, int rounds) {
    return measureLimits(sampleBytes, batchSize, rounds, cores()).allCoresMbPerSecond();
  }

  /**
   * Both figures, measured side by side on one source: each round runs the one-thread gather, then
   * the all-cores gather, so a slow moment of the machine weighs on both.
   */
  public static MemcpyLimits measureLimits(int sampleBytes, int batchSize, int rounds) {
    return measureLimits(sampleBytes, batchSize, rounds, cores());
  }

  /**
   * {@link #measureLimits(int, int, int)} with {@code threads} threads for the all-cores figure;
   * with one thread only the one-thread gather runs (both figures are then the same).
   */
  static MemcpyLimits measureLimits(int sampleBytes, int batchSize, int rounds, int threads) {
    checkRounds(sampleBytes, batchSize, rounds);
    try (MemcpyMeter meter = new MemcpyMeter(sampleBytes, batchSize, threads)) {
      return meter.measure(rounds);
    }
  }

  /**
   * A meter that keeps its source between measurements, for measuring again and again side by side
   * with a loader (as {@link Sweep} does before each round of its grid); close it to free the
   * source.
   */
  public static MemcpyMeter meter(int sampleBytes, int batchSize) {
    checkRounds(sampleBytes, batchSize, 1);
    return new MemcpyMeter(sampleBytes, batchSize, cores());
  }

  static void checkRounds(int sampleBytes, int batchSize, int rounds) {
    if (sampleBytes <= 0 || batchSize <= 0 || rounds <= 0) {
      throw new IllegalArgumentException(
          String.format(
              "sampleBytes: %d, batchSize: %d, rounds: %d (expected: all > 0)",
              sampleBytes, batchSize, rounds));
    }
  }

  static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** Copies the samples of {@code order} into {@code batch}, {@code batchSize} at a time. */
  static void gather(DirectSamples source, ByteBuffer batch, int[] order, int batchSize) {
    int sampleBytes = source.sampleBytes();
    for (int i = 0; i < order.length; i++) {
      int sample = order[i];
      batch.put(
          (i % batchSize) * sampleBytes, source.buffer(sample), source.offset(sample), sampleBytes);
    }
  }

  static int[] permutation(int n, SplittableRandom random) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }
}
