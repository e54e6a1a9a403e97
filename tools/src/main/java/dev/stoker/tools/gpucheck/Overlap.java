package dev.stoker.tools.gpucheck;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.device.CudaDevice;
import java.util.ArrayList;
import java.util.List;

/**
 * Part 3: a synthetic training step (the spin kernel, a set time per batch, reading the batch) fed
 * by the loader at several numWorkers/prefetchFactor/transferDepth settings. The step's stream
 * waits on each batch's copy event and passes its own event back with {@code reuseAfter}, so
 * nothing waits on the host. GPU busy = time the kernels spun / wall time; below 0.8 the pipeline
 * is the bottleneck.
 */
public final class Overlap {
  /** One loader setting. */
  public record Config(int numWorkers, int prefetchFactor, int transferDepth) {}

  /** One measurement; {@code feeder} is {@code stoker} or {@code torch}. */
  public record Row(
      String feeder,
      double stepMs,
      Config config,
      long batches,
      double samplesPerSecond,
      double busy,
      String verdict) {
    public boolean pipelineBound() {
      return busy < 0.8;
    }
  }

  /** The settings measured: from one worker (often too few) to plenty. */
  public static List<Config> standardConfigs() {
    return List.of(
        new Config(1, 2, 2),
        new Config(2, 2, 2),
        new Config(4, 2, 2),
        new Config(4, 4, 4),
        new Config(8, 4, 2));
  }

  private Overlap() {}

  /**
   * Loading alone (the consumer only closes each batch): samples/s of each setting, the rate a step
   * has to be slower than for the GPU to be kept busy.
   */
  public static Row loadOnly(
      CudaDevice device, MapDataset data, int batchSize, Config config, int warmup, int measured) {
    try (DataLoader loader = newLoader(device, data, batchSize, config);
        BatchIterator it = loader.iterator()) {
      take(it, warmup, null, 0);
      long start = System.nanoTime();
      long taken = take(it, measured, null, 0);
      long wall = System.nanoTime() - start;
      return new Row(
          "stoker",
          0,
          config,
          taken,
          taken * batchSize * 1e9 / wall,
          0,
          loader.report().verdict().label());
    }
  }

  /** The step of {@code stepMs} ms fed by the loader with {@code config}. */
  public static Row withStep(
      CudaDevice device,
      MapDataset data,
      int batchSize,
      Config config,
      double stepMs,
      Step step,
      int warmup,
      int measured) {
    long stepNanos = Math.round(stepMs * 1e6);
    try (DataLoader loader = newLoader(device, data, batchSize, config);
        BatchIterator it = loader.iterator()) {
      step.reset();
      take(it, warmup, step, stepNanos);
      step.reset();
      long start = System.nanoTime();
      long taken = take(it, measured, step, stepNanos);
      long spun = step.finish();
      long wall = System.nanoTime() - start;
      return new Row(
          "stoker",
          stepMs,
          config,
          taken,
          taken * batchSize * 1e9 / wall,
          (double) spun / wall,
          loader.report().verdict().label());
    } finally {
      step.reset();
    }
  }

  private static DataLoader newLoader(
      CudaDevice device, MapDataset data, int batchSize, Config config) {
    LoaderOptions options =
        LoaderOptions.builder()
            .batchSize(batchSize)
            .shuffle(true)
            .seed(1)
            .numWorkers(config.numWorkers())
            .prefetchFactor(config.prefetchFactor())
            .persistentWorkers(true)
            .pinMemory(true)
            .transferDepth(config.transferDepth())
            .dropLast(true)
            .name("gpu-check-overlap")
            .build();
    return DataLoader.builder(data).options(options).device(device).build();
  }

  /** Takes up to {@code count} batches (across epochs), running the step on each if given. */
  private static long take(BatchIterator it, int count, Step step, long stepNanos) {
    long taken = 0;
    while (taken < count && it.hasNext()) {
      try (Batch batch = it.next()) {
        if (step != null) {
          long done =
              step.run(
                  batch.deviceEvent().handle(), batch.deviceColumn("image").address(), stepNanos);
          batch.deviceBuffer().reuseAfter(done);
        }
      }
      taken++;
    }
    return taken;
  }

  /** Rows of the loader, for each step and setting, until {@code deadline} (nanoTime). */
  public static List<Row> sweep(
      CudaDevice device,
      Gpu gpu,
      MapDataset data,
      int batchSize,
      List<Config> configs,
      double[] stepsMs,
      int warmup,
      int measured,
      long deadline) {
    List<Row> rows = new ArrayList<>();
    int ring = configs.stream().mapToInt(Config::transferDepth).max().orElse(1) + 4;
    try (Step step = gpu.newStep(ring, warmup + measured)) {
      for (double stepMs : stepsMs) {
        for (Config config : configs) {
          if (System.nanoTime() > deadline) {
            return rows;
          }
          rows.add(withStep(device, data, batchSize, config, stepMs, step, warmup, measured));
        }
      }
    }
    return rows;
  }
}
