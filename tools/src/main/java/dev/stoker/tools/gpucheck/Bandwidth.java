package dev.stoker.tools.gpucheck;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import dev.stoker.loader.device.CudaDevice;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.tools.gpucheck.device.RawCopies;

/**
 * Part 2: host-to-device GB/s through the loader (16 MiB batches of float32[16,64,64] samples,
 * pinned slots), in two readings: end to end (batches delivered per second, filling included) and
 * the transfer stage alone (bytes over the time the transfer thread spent copying and waiting for
 * each copy); and, in the same run, raw {@code cudaMemcpyAsync} of the same size from pinned memory
 * (back to back, and waiting after each copy as the loader does) and from pageable memory.
 */
public final class Bandwidth {
  /** GB/s are 10^9 bytes per second. */
  public record Result(
      int batchBytes,
      long batches,
      int numWorkers,
      double loaderGbps,
      double transferStageGbps,
      RawCopies.Result raw) {
    /** The transfer stage against back-to-back pinned copies: the target is 0.9. */
    public double transferRatio() {
      return raw.pinnedGbps() <= 0 ? 0 : transferStageGbps / raw.pinnedGbps();
    }

    public double loaderRatio() {
      return raw.pinnedGbps() <= 0 ? 0 : loaderGbps / raw.pinnedGbps();
    }
  }

  private static final Schema SCHEMA = Schema.of(Field.of("tensor", DType.FLOAT32, 16, 64, 64));
  private static final int BATCH = 64;

  private Bandwidth() {}

  /**
   * Runs {@code epochs} measured epochs of {@code batchesPerEpoch} batches after one to warm up,
   * then the raw copies.
   */
  public static Result run(CudaDevice device, Gpu gpu, int epochs, int batchesPerEpoch) {
    int workers = Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() - 2));
    CheckDataset data = new CheckDataset(SCHEMA, BATCH * batchesPerEpoch, 5);
    LoaderOptions options =
        LoaderOptions.builder()
            .batchSize(BATCH)
            .numWorkers(workers)
            .prefetchFactor(2)
            .persistentWorkers(true)
            .pinMemory(true)
            .transferDepth(3)
            .dropLast(true)
            .name("gpu-check-bandwidth")
            .build();
    int slotBytes;
    long batches = 0;
    long wallNanos = 0;
    long transferNanos = 0;
    try (DataLoader loader = DataLoader.builder(data).options(options).device(device).build()) {
      slotBytes = loader.layout().slotBytes();
      drain(loader, 0);
      for (int epoch = 1; epoch <= epochs; epoch++) {
        long start = System.nanoTime();
        batches += drain(loader, epoch);
        wallNanos += System.nanoTime() - start;
        EpochMetrics metrics = loader.metrics().last();
        transferNanos += metrics.transferNanos();
      }
    }
    double bytes = (double) batches * slotBytes;
    RawCopies.Result raw = gpu.rawCopies(slotBytes, Math.toIntExact(Math.max(16, batches)));
    return new Result(
        slotBytes,
        batches,
        workers,
        bytes / wallNanos,
        transferNanos <= 0 ? 0 : bytes / transferNanos,
        raw);
  }

  private static long drain(DataLoader loader, int epoch) {
    long batches = 0;
    for (Batch batch : loader.epoch(epoch)) {
      batch.close();
      batches++;
    }
    return batches;
  }
}
