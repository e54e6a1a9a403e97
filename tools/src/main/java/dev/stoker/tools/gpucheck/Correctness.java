package dev.stoker.tools.gpucheck;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.DeviceColumn;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import dev.stoker.loader.device.CudaDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Part 1: random batches of several shapes and dtypes, loaded onto the device and read back, equal
 * the samples they came from, row by row; after each loader closes, the device's pinned and device
 * bytes are back to zero and the memory in use on the device back to where it was.
 */
public final class Correctness {
  /** One loader configuration to check. */
  public record Case(
      String name,
      Schema schema,
      int samples,
      int batchSize,
      int numWorkers,
      boolean pinMemory,
      int transferDepth) {
    String describe() {
      StringBuilder fields = new StringBuilder();
      for (Field f : schema.fields()) {
        fields
            .append(fields.length() == 0 ? "" : " + ")
            .append(f.dtype().label())
            .append(f.shape().length == 0 ? "" : f.shapeText());
      }
      return fields
          + ", batch "
          + batchSize
          + ", "
          + numWorkers
          + " workers, "
          + (pinMemory ? "pinned" : "pageable")
          + ", depth "
          + transferDepth;
    }
  }

  /** What one case found; {@code passed()} says whether it is all as it must be. */
  public record Result(
      String name,
      String config,
      int batches,
      long rowsChecked,
      long mismatches,
      String firstMismatch,
      long pinnedAfter,
      long deviceAfter,
      long usedDelta,
      long tolerance) {
    public boolean passed() {
      return mismatches == 0
          && pinnedAfter == 0
          && deviceAfter == 0
          && Math.abs(usedDelta) <= tolerance;
    }
  }

  /** The cases the GPU check runs: several shapes, dtypes, worker counts, and both memories. */
  public static List<Case> standardCases() {
    return List.of(
        new Case(
            "images",
            Schema.of(
                Field.of("image", DType.FLOAT32, 3, 32, 32), Field.scalar("label", DType.INT64)),
            1000,
            32,
            4,
            true,
            2),
        new Case(
            "pixels",
            Schema.of(
                Field.of("pixels", DType.UINT8, 1, 28, 28), Field.scalar("label", DType.INT32)),
            500,
            7,
            0,
            true,
            1),
        new Case(
            "mixed",
            Schema.of(
                Field.of("vec", DType.FLOAT64, 17),
                Field.of("mask", DType.UINT8, 5),
                Field.scalar("id", DType.INT64),
                Field.scalar("count", DType.INT32)),
            777,
            64,
            2,
            false,
            3),
        new Case(
            "large", Schema.of(Field.of("tensor", DType.FLOAT32, 16, 64, 64)), 96, 16, 3, true, 2));
  }

  private Correctness() {}

  /**
   * Runs every case on {@code device}, reading through {@code access}; memory in use may move by at
   * most {@code tolerance} bytes (the driver's own allocations).
   */
  public static List<Result> run(
      CudaDevice device, DeviceAccess access, List<Case> cases, long tolerance) {
    runCase(device, access, cases.get(0), 0); // the driver settles its own allocations
    long baseline = access.usedBytes();
    List<Result> results = new ArrayList<>();
    for (Case c : cases) {
      Result r = runCase(device, access, c, tolerance);
      long used = access.usedBytes();
      results.add(
          new Result(
              r.name(),
              r.config(),
              r.batches(),
              r.rowsChecked(),
              r.mismatches(),
              r.firstMismatch(),
              r.pinnedAfter(),
              r.deviceAfter(),
              used - baseline,
              tolerance));
    }
    return results;
  }

  private static Result runCase(CudaDevice device, DeviceAccess access, Case c, long tolerance) {
    CheckDataset data = new CheckDataset(c.schema(), c.samples(), c.name().hashCode());
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(c.batchSize())
            .shuffle(true)
            .seed(17)
            .numWorkers(c.numWorkers())
            .pinMemory(c.pinMemory())
            .transferDepth(c.transferDepth())
            .name("gpu-check-" + c.name());
    int batches = 0;
    long rows = 0;
    long mismatches = 0;
    String first = null;
    try (DataLoader loader =
        DataLoader.builder(data).options(options.build()).device(device).build()) {
      for (int epoch = 0; epoch < 2; epoch++) {
        for (Batch batch : loader.epoch(epoch)) {
          batches++;
          for (int f = 0; f < c.schema().size(); f++) {
            DeviceColumn column = batch.deviceColumn(c.schema().field(f).name());
            byte[] bytes = new byte[Math.toIntExact(column.bytes())];
            access.copyToHost(column.address(), bytes);
            ByteBuffer read = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
            for (int r = 0; r < batch.size(); r++) {
              long sample = batch.sampleIndex(r);
              int e =
                  data.firstDifference(
                      f,
                      sample,
                      read,
                      loader.layout().rowOffset(f, r) - loader.layout().columnOffset(f));
              rows++;
              if (e >= 0) {
                mismatches++;
                if (first == null) {
                  first =
                      String.format(
                          "epoch %d batch %d row %d (sample %d) field '%s' " + "element %d",
                          epoch, batch.index(), r, sample, column.name(), e);
                }
              }
            }
          }
        }
      }
    }
    awaitPinnedFreed(device);
    return new Result(
        c.name(),
        c.describe(),
        batches,
        rows,
        mismatches,
        first,
        device.pinnedBytes(),
        device.deviceBytes(),
        0,
        tolerance);
  }

  /** Pinned slots that were viewed are freed once unreachable: give the collector a moment. */
  static void awaitPinnedFreed(CudaDevice device) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (device.pinnedBytes() > 0 && System.nanoTime() < deadline) {
      System.gc();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
