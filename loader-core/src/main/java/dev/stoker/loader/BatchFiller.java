package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.SkippedSample;
import dev.stoker.loader.pipeline.BatchLoadException;
import dev.stoker.loader.pipeline.SlotFiller;
import dev.stoker.loader.pipeline.WorkerStatus;
import dev.stoker.loader.sampler.EpochBatches;

/**
 * Writes one epoch's batches: the samples of batch k, in sampler order, each straight into its row
 * of the slot. A failing sample fails the batch or is skipped, as {@code onBadSample} says; rows
 * that end up unused are zeroed so no stale data is left in them.
 */
final class BatchFiller implements SlotFiller {
  private final MapDataset dataset;
  private final BatchLayout layout;
  private final EpochBatches plan;
  private final OnBadSample onBadSample;
  private final EpochCounters counters;
  private final ThreadLocal<SampleWriter> writers;

  /** @param writers one writer per thread, kept by the loader so that epochs reuse them */
  BatchFiller(MapDataset dataset, BatchLayout layout, EpochBatches plan, OnBadSample onBadSample,
      EpochCounters counters, ThreadLocal<SampleWriter> writers) {
    this.dataset = dataset;
    this.layout = layout;
    this.plan = plan;
    this.onBadSample = onBadSample;
    this.counters = counters;
    this.writers = writers;
  }

  @Override
  public void fill(HostMemory slot, int batch, WorkerStatus status) throws InterruptedException {
    Batch view = batchOf(slot);
    SampleWriter writer = writers.get();
    int length = plan.batchLength(batch);
    status.filling(batch, length);
    int rows = 0;
    for (int i = 0; i < length; i++) {
      int sample = plan.sampleIndex(batch, i);
      status.sample(i, sample);
      writer.bind(slot, rows);
      if (writeOne(sample, writer, batch, i, length)) {
        rows++;
      }
    }
    if (rows < layout.batchSize()) {
      zeroRows(slot, rows);
    }
    view.filled(plan, batch, rows, length - rows);
  }

  /** True if the sample was written; false if it was skipped. */
  private boolean writeOne(int sample, SampleWriter writer, int batch, int row, int length)
      throws InterruptedException {
    try {
      dataset.write(sample, writer);
      checkEveryFieldWritten(sample, writer);
      return true;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      if (onBadSample == OnBadSample.SKIP) {
        counters.addSkipped(new SkippedSample(plan.epoch(), batch, sample, String.valueOf(e)));
        return false;
      }
      throw new BatchLoadException(String.format(
          "epoch %d batch %d sample %d (row %d of %d): %s; to skip bad samples, set "
              + "onBadSample=skip", plan.epoch(), batch, sample, row, length, e),
          plan.epoch(), batch, sample, e);
    }
  }

  private void checkEveryFieldWritten(int sample, SampleWriter writer) {
    int missing = writer.firstUnwrittenField();
    if (missing >= 0) {
      Field field = layout.schema().field(missing);
      throw new IllegalStateException(String.format(
          "sample %d wrote nothing to field '%s' %s%s (expected: every field of every sample "
              + "written, or its row would keep another sample's values)", sample, field.name(),
          field.dtype().label(), field.shapeText()));
    }
  }

  private Batch batchOf(HostMemory slot) {
    Object attached = slot.attachment();
    if (attached instanceof Batch batch) {
      return batch;
    }
    Batch batch = new Batch(layout, slot);
    slot.attach(batch);
    return batch;
  }

  private void zeroRows(HostMemory slot, int fromRow) {
    for (int f = 0; f < layout.schema().size(); f++) {
      int start = layout.rowOffset(f, fromRow);
      slot.zero(start, (layout.batchSize() - fromRow) * layout.rowStride(f));
    }
  }
}
