package dev.stoker.loader.bench;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The machine's single-thread copy bandwidth for the gather the {@code copy} workload does: random
 * samples from a source larger than the caches, laid out as {@code copy} lays out its images,
 * copied into a batch buffer with the same bulk call as {@code SampleWriter.copyRaw}. It is the
 * ceiling of one loading thread; a loader at a ratio near 1 per thread has nothing left to gain.
 */
public final class MemcpyBaseline {
  /** Source size: larger than any last-level cache. */
  public static final long SOURCE_BYTES = 256L << 20;
  public static final int BATCH_SIZE = 64;
  static final int WARMUP_ROUNDS = 2;
  static final int TIMED_ROUNDS = 7;

  private MemcpyBaseline() {}

  /** Median MB/s (10^6 bytes) for the {@code copy} workload's samples in batches of 64. */
  public static double measure() {
    return measure(ReferenceWorkloads.IMAGE_BYTES, BATCH_SIZE, TIMED_ROUNDS);
  }

  /**
   * Median MB/s over {@code rounds} timed rounds, after a warm-up; each round copies every sample
   * of a source of at least {@link #SOURCE_BYTES}, in a new random order, {@code batchSize} at a
   * time into one batch buffer.
   */
  public static double measure(int sampleBytes, int batchSize, int rounds) {
    if (sampleBytes <= 0 || batchSize <= 0 || rounds <= 0) {
      throw new IllegalArgumentException(String.format(
          "sampleBytes: %d, batchSize: %d, rounds: %d (expected: all > 0)",
          sampleBytes, batchSize, rounds));
    }
    int samples = (int) Math.max(batchSize, (SOURCE_BYTES + sampleBytes - 1) / sampleBytes);
    samples -= samples % batchSize;
    SplittableRandom random = new SplittableRandom(42);
    try (DirectSamples source = new DirectSamples(samples, sampleBytes);
        HostMemory batch = DirectAllocator.INSTANCE.allocate(batchSize * sampleBytes)) {
      int[][] orders = new int[WARMUP_ROUNDS + rounds][];
      for (int r = 0; r < orders.length; r++) {
        orders[r] = permutation(samples, random);
      }
      double[] mbPerSecond = new double[rounds];
      for (int r = 0; r < orders.length; r++) {
        long start = System.nanoTime();
        gather(source, batch.bytes(), orders[r], batchSize);
        long nanos = System.nanoTime() - start;
        if (r >= WARMUP_ROUNDS) {
          mbPerSecond[r - WARMUP_ROUNDS] = (double) samples * sampleBytes / nanos * 1e3;
        }
      }
      return Medians.of(mbPerSecond);
    }
  }

  private static void gather(DirectSamples source, ByteBuffer batch, int[] order, int batchSize) {
    int sampleBytes = source.sampleBytes();
    for (int i = 0; i < order.length; i++) {
      int sample = order[i];
      batch.put((i % batchSize) * sampleBytes, source.buffer(sample), source.offset(sample),
          sampleBytes);
    }
  }

  private static int[] permutation(int n, SplittableRandom random) {
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
