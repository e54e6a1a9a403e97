package dev.stoker.tools.bench;

import dev.stoker.loader.LoaderOptions;
import java.time.Duration;

/**
 * One point of a {@link Sweep}: worker threads, prefetch factor (null without workers, where it
 * does not apply) and pinned memory.
 */
public record SweepConfig(int workers, Integer prefetch, boolean pinMemory) {
  /** Longest wait for one batch in a benchmark: a stuck run fails instead of hanging. */
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  public SweepConfig {
    if (workers < 0) {
      throw new IllegalArgumentException("workers: " + workers + " (expected: >= 0)");
    }
    if ((workers == 0) != (prefetch == null)) {
      throw new IllegalArgumentException(
          "prefetch: "
              + prefetch
              + " with workers: "
              + workers
              + " (expected: a prefetch factor exactly when workers > 0)");
    }
    if (prefetch != null && prefetch <= 0) {
      throw new IllegalArgumentException("prefetch: " + prefetch + " (expected: > 0)");
    }
  }

  /**
   * The loader options of this point, as the PyTorch peer sets them: shuffled, short tail dropped,
   * and persistent workers when there are workers.
   */
  public LoaderOptions options(int batchSize, long seed) {
    LoaderOptions.Builder b =
        LoaderOptions.builder()
            .batchSize(batchSize)
            .shuffle(true)
            .seed(seed)
            .dropLast(true)
            .numWorkers(workers)
            .pinMemory(pinMemory)
            .timeout(TIMEOUT)
            .name(
                "bench-w"
                    + workers
                    + (prefetch == null ? "" : "-p" + prefetch)
                    + (pinMemory ? "-pin" : ""));
    if (workers > 0) {
      b.prefetchFactor(prefetch).persistentWorkers(true);
    }
    return b.build();
  }

  /** E.g. {@code workers=2 prefetch=4 pin=false}. */
  public String label() {
    return "workers="
        + workers
        + " prefetch="
        + (prefetch == null ? "-" : prefetch)
        + " pin="
        + pinMemory;
  }

  @Override
  public String toString() {
    return label();
  }
}
