package dev.stoker.tools.bench;

/**
 * The machine's copy bandwidth for a loader's gather, measured side by side: with one thread, and
 * with as many threads as cores, each gathering on its own. A loader is compared with both: the
 * first is the ceiling of one loading thread, the second the ceiling of the machine.
 *
 * @param oneThreadMbPerSecond median MB/s (10^6 bytes) of one thread; NaN if unknown
 * @param allCoresMbPerSecond median aggregate MB/s of {@code threads} threads; NaN if unknown
 * @param threads threads of the all-cores figure
 */
public record MemcpyLimits(double oneThreadMbPerSecond, double allCoresMbPerSecond, int threads) {
  /** Limits with only the one-thread figure known. */
  public static MemcpyLimits oneThread(double mbPerSecond) {
    return new MemcpyLimits(mbPerSecond, Double.NaN, 1);
  }

  /** {@code mbPerSecond} over the one-thread figure; NaN if that is unknown. */
  public double ratioToOneThread(double mbPerSecond) {
    return ratio(mbPerSecond, oneThreadMbPerSecond);
  }

  /** {@code mbPerSecond} over the all-cores figure; NaN if that is unknown. */
  public double ratioToAllCores(double mbPerSecond) {
    return ratio(mbPerSecond, allCoresMbPerSecond);
  }

  private static double ratio(double value, double limit) {
    return Double.isFinite(limit) && limit > 0 ? value / limit : Double.NaN;
  }
}
