package dev.stoker.tools.bench;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.util.SplittableRandom;

/**
 * Measures {@link MemcpyLimits} on a source it keeps until closed: at least {@link
 * MemcpyBaseline#SOURCE_BYTES} of samples, and a batch buffer for the one-thread gather. Each
 * {@link #measure} runs its rounds as {@link MemcpyBaseline#measureLimits} describes; the all-cores
 * threads live for one measurement. One thread measures at a time; measuring after {@link #close()}
 * is an {@link IllegalStateException}.
 */
public final class MemcpyMeter implements AutoCloseable {
  private final int batchSize;
  private final int threads;
  private final DirectSamples source;
  private final HostMemory batch;
  private final SplittableRandom random = new SplittableRandom(42);
  private boolean closed;

  MemcpyMeter(int sampleBytes, int batchSize, int threads) {
    if (threads <= 0) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: > 0)");
    }
    this.batchSize = batchSize;
    this.threads = threads;
    int samples =
        (int) Math.max(batchSize, (MemcpyBaseline.SOURCE_BYTES + sampleBytes - 1) / sampleBytes);
    samples -= samples % batchSize;
    this.source = new DirectSamples(samples, sampleBytes);
    try {
      this.batch = DirectAllocator.INSTANCE.allocate(batchSize * sampleBytes);
    } catch (RuntimeException | Error e) {
      source.close();
      throw e;
    }
  }

  /** Threads of the all-cores figure. */
  public int threads() {
    return threads;
  }

  /**
   * Both figures, median over {@code rounds} timed rounds after a warm-up; each round runs the
   * one-thread gather, then the all-cores gather (with one thread, only the first; both figures are
   * then the same).
   */
  public synchronized MemcpyLimits measure(int rounds) {
    MemcpyBaseline.checkRounds(source.sampleBytes(), batchSize, rounds);
    if (closed) {
      throw new IllegalStateException("the memcpy meter is closed");
    }
    int total = MemcpyBaseline.WARMUP_ROUNDS + rounds;
    double roundBytes = (double) source.count() * source.sampleBytes();
    try (GatherCrew crew =
        threads > 1 ? new GatherCrew(source, batchSize, threads, total, random) : null) {
      double[] one = new double[rounds];
      double[] all = new double[rounds];
      for (int r = 0; r < total; r++) {
        int[] order = MemcpyBaseline.permutation(source.count(), random);
        long start = System.nanoTime();
        MemcpyBaseline.gather(source, batch.bytes(), order, batchSize);
        long nanos = System.nanoTime() - start;
        long crewNanos = crew == null ? nanos : crew.runRound(r);
        if (r >= MemcpyBaseline.WARMUP_ROUNDS) {
          one[r - MemcpyBaseline.WARMUP_ROUNDS] = roundBytes / nanos * 1e3;
          all[r - MemcpyBaseline.WARMUP_ROUNDS] = roundBytes * threads / crewNanos * 1e3;
        }
      }
      return new MemcpyLimits(Medians.of(one), Medians.of(all), threads);
    }
  }

  /** Frees the source. Safe to call twice. */
  @Override
  public synchronized void close() {
    closed = true;
    batch.close();
    source.close();
  }
}
