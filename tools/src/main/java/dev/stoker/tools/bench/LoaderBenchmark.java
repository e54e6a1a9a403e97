package dev.stoker.tools.bench;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.metrics.BottleneckReport;

/**
 * Measures one loader configuration as a training loop would see it: epochs run back to back, the
 * consumer reads one value of each batch and closes it at once, so the figure is what the loader
 * can deliver. Warm-up batches are not measured; the last one is held until the workers have filled
 * the prefetch window, so that the loader has allocated all the slots it will use and the measured
 * window sees its steady state. A garbage collection is asked for before the warm-up, so that what
 * the measured window allocates, not the garbage of earlier runs, decides whether a collection
 * falls into it.
 */
public final class LoaderBenchmark {
  /** Longest wait for the workers to fill the prefetch window after the warm-up. */
  private static final long PRIME_LIMIT_NANOS = 2_000_000_000L;

  /** The window counts as full when no slot was taken for this long. */
  private static final long PRIME_STALL_NANOS = 100_000_000L;

  /** Keeps the consumer's reads alive. */
  private static volatile double sink;

  private LoaderBenchmark() {}

  /**
   * Builds a loader on {@code dataset} with {@code options}, consumes {@code warmupBatches}, then
   * measures {@code measuredBatches}, and closes the loader. MB/s counts every field (or a {@link
   * Workload}'s own bytes per sample, if the dataset is one).
   *
   * @throws IllegalArgumentException if a batch count is out of range or an epoch has no batch
   */
  public static BenchmarkResult run(
      MapDataset dataset, LoaderOptions options, int warmupBatches, int measuredBatches) {
    return run(Workload.of(dataset), options, warmupBatches, measuredBatches);
  }

  /** {@link #run(MapDataset, LoaderOptions, int, int)} for a stream. */
  public static BenchmarkResult run(
      StreamedDataset dataset, LoaderOptions options, int warmupBatches, int measuredBatches) {
    return run(Workload.of(dataset), options, warmupBatches, measuredBatches);
  }

  /**
   * {@link #run(MapDataset, LoaderOptions, int, int)} for a workload of either kind; MB/s counts
   * its {@link Workload#bytesPerSample()}.
   */
  public static BenchmarkResult run(
      Workload workload, LoaderOptions options, int warmupBatches, int measuredBatches) {
    if (warmupBatches < 0) {
      throw new IllegalArgumentException("warmupBatches: " + warmupBatches + " (expected: >= 0)");
    }
    if (measuredBatches <= 0) {
      throw new IllegalArgumentException(
          "measuredBatches: " + measuredBatches + " (expected: > 0)");
    }
    AllocationProbe probe = new AllocationProbe();
    try (DataLoader loader = workload.newLoader(options)) {
      if (loader.batchesPerEpoch() == 0) {
        throw new IllegalArgumentException(
            String.format(
                "dataset: %d samples give no batch of batchSize=%d per epoch (expected: at least "
                    + "batchSize samples per rank)",
                workload.samples(), options.batchSize()));
      }
      System.gc();
      BatchIterator epoch = loader.iterator();
      double seen = 0;
      for (int i = 0; i < warmupBatches; i++) {
        epoch = epoch.hasNext() ? epoch : loader.iterator();
        Batch batch = epoch.next();
        seen += touch(batch);
        if (i == warmupBatches - 1 && options.numWorkers() > 0) {
          awaitFullWindow(loader, options.prefetchWindow() + 1);
        }
        batch.close();
      }
      MetricsWindow window = new MetricsWindow(epoch.metrics());
      long samples = 0;
      int epochStarts = 0;
      long boundaryBytes = 0;
      AllocationProbe.Snapshot before = probe.start();
      long start = System.nanoTime();
      for (int i = 0; i < measuredBatches; i++) {
        if (!epoch.hasNext()) {
          long allocated = probe.currentThreadBytes();
          window.add(epoch.metrics());
          epoch = loader.iterator();
          epochStarts++;
          boundaryBytes += allocated < 0 ? 0 : probe.currentThreadBytes() - allocated;
        }
        long allocated = probe.currentThreadBytes();
        Batch batch = epoch.next();
        if (!epoch.hasNext() && allocated >= 0) {
          boundaryBytes += probe.currentThreadBytes() - allocated; // the epoch's end: its metrics
        }
        samples += batch.size();
        seen += touch(batch);
        batch.close();
      }
      long nanos = System.nanoTime() - start;
      AllocationProbe.Usage usage = probe.since(before);
      window.add(epoch.metrics());
      epoch.close();
      sink = seen;
      BottleneckReport report = BottleneckReport.of(window.result(nanos));
      return new BenchmarkResult(
          options,
          workload.bytesPerSample(),
          measuredBatches,
          samples,
          nanos,
          report,
          usage,
          epochStarts,
          probe.allocationSupported() ? boundaryBytes : -1);
    }
  }

  /** Waits until {@code slots} slots are out, or none was taken for a while, or a limit passes. */
  private static void awaitFullWindow(DataLoader loader, int slots) {
    long start = System.nanoTime();
    long grew = start;
    int out = loader.slotsOut();
    while (out < slots) {
      long now = System.nanoTime();
      if (now - start > PRIME_LIMIT_NANOS || now - grew > PRIME_STALL_NANOS) {
        return;
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      int current = loader.slotsOut();
      if (current > out) {
        out = current;
        grew = System.nanoTime();
      }
    }
  }

  /** Reads one value of the first field, as a consumer touching the batch would. */
  private static double touch(Batch batch) {
    double value = 0;
    if (batch.size() > 0) {
      value =
          switch (batch.schema().field(0).dtype()) {
            case FLOAT32 -> batch.getFloat(0, 0, 0);
            case FLOAT64 -> batch.getDouble(0, 0, 0);
            case INT32 -> batch.getInt(0, 0, 0);
            case INT64 -> batch.getLong(0, 0, 0);
            case UINT8 -> batch.getUInt8(0, 0, 0);
          };
    }
    return value;
  }
}
