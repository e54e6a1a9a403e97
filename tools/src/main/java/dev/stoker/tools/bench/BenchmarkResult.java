package dev.stoker.tools.bench;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.metrics.BottleneckReport;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.metrics.Verdict;
import java.util.Locale;

/**
 * One measured run of a loader.
 *
 * @param bytesPerSample output bytes per sample that MB/s counts
 * @param batches batches in the measured window
 * @param samples samples in the measured window
 * @param nanos wall time of the measured window
 * @param report the bottleneck report of the loader's metrics over the measured window
 * @param usage heap allocation and collections during the measured window
 * @param epochStarts epochs started inside the measured window
 * @param epochBoundaryBytes bytes the consumer allocated ending and starting epochs (the epoch's
 *     metrics, index arrays and pipeline), -1 if unknown; not part of the per-batch figure
 */
public record BenchmarkResult(
    LoaderOptions options,
    long bytesPerSample,
    long batches,
    long samples,
    long nanos,
    BottleneckReport report,
    AllocationProbe.Usage usage,
    int epochStarts,
    long epochBoundaryBytes) {

  public double samplesPerSecond() {
    return nanos <= 0 ? 0 : samples * 1e9 / nanos;
  }

  /** Output megabytes (10^6 bytes) per second. */
  public double mbPerSecond() {
    return samplesPerSecond() * bytesPerSample / 1e6;
  }

  public Verdict verdict() {
    return report.verdict();
  }

  /** The loader's metrics over the measured window. */
  public EpochMetrics metrics() {
    return report.metrics();
  }

  /**
   * Heap bytes allocated per batch by all threads in the window, the ends and starts of epochs left
   * out: the steady state of the hot path. NaN if unknown.
   */
  public double allocatedBytesPerBatch() {
    if (usage.allocatedBytes() < 0 || epochBoundaryBytes < 0 || batches <= 0) {
      return Double.NaN;
    }
    return Math.max(0, usage.allocatedBytes() - epochBoundaryBytes) / (double) batches;
  }

  /**
   * Heap bytes allocated per epoch boundary (metrics, index arrays, pipeline); NaN if none or
   * unknown.
   */
  public double allocatedBytesPerEpochBoundary() {
    return epochStarts == 0 || epochBoundaryBytes < 0
        ? Double.NaN
        : epochBoundaryBytes / (double) epochStarts;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%,.0f samples/s, %,.0f MB/s, %s, %.0f B/batch allocated, %d GC (workers=%d)",
        samplesPerSecond(),
        mbPerSecond(),
        verdict().label(),
        allocatedBytesPerBatch(),
        usage.gcCollections(),
        options.numWorkers());
  }
}
