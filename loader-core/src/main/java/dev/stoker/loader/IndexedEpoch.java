package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.SkippedSample;
import dev.stoker.loader.pipeline.StagedBatch;
import dev.stoker.loader.pipeline.WorkerStatus;
import dev.stoker.loader.sampler.EpochBatches;
import java.util.concurrent.CancellationException;

/**
 * Writes one epoch of a map dataset: the samples of batch k, in sampler order, each straight into
 * its row of the slot. A failing sample fails the batch or is skipped, as {@code onBadSample} says
 * (an {@link Error} always fails it); rows that end up unused are zeroed so no stale data is left
 * in them.
 */
final class IndexedEpoch implements EpochSource {
  private final String loader;
  private final MapDataset dataset;
  private final BatchLayout layout;
  private final SampleStage stage;
  private final EpochBatches plan;
  private final OnBadSample onBadSample;
  private final EpochCounters counters;
  private final ThreadLocal<SampleWriter> writers;
  private volatile boolean cancelled;

  IndexedEpoch(
      String loader,
      MapDataset dataset,
      BatchLayout layout,
      SampleStage stage,
      EpochBatches plan,
      OnBadSample onBadSample,
      EpochCounters counters,
      ThreadLocal<SampleWriter> writers) {
    this.loader = loader;
    this.dataset = dataset;
    this.layout = layout;
    this.stage = stage;
    this.plan = plan;
    this.onBadSample = onBadSample;
    this.counters = counters;
    this.writers = writers;
  }

  /** The failure this thread's last write had the dataset check, which needs no second look. */
  private final ThreadLocal<Throwable> checked = new ThreadLocal<>();

  @Override
  public long sampleIndex(int batch, int row) {
    return plan.sampleIndex(batch, row);
  }

  @Override
  public boolean write(StagedBatch target, int batch, WorkerStatus status) throws Exception {
    HostMemory slot = target.host();
    SampleWriter writer = writers.get();
    int length = plan.batchLength(batch);
    status.filling(batch, length);
    checked.remove();
    int rows = 0;
    try {
      for (int i = 0; i < length; i++) {
        if (cancelled) {
          throw new CancellationException(
              "loader '"
                  + loader
                  + "' epoch "
                  + plan.epoch()
                  + " was closed while batch "
                  + batch
                  + " was written, before its row "
                  + i);
        }
        int sample = plan.sampleIndex(batch, i);
        status.sample(i, sample);
        writer.bind(slot, rows);
        if (writeOne(sample, writer, batch, i, length)) {
          rows++;
        }
      }
    } catch (RuntimeException | Error e) {
      checkDataset(e);
      throw e;
    } finally {
      writer.unbind();
    }
    checkDataset(null);
    if (rows < layout.batchSize()) {
      layout.zeroRows(slot, rows);
    }
    target.filled(rows, length - rows);
    return true;
  }

  /** True if the sample was written; false if it was skipped. */
  private boolean writeOne(int sample, SampleWriter writer, int batch, int row, int length) {
    try {
      if (stage == null) {
        dataset.write(sample, writer);
      } else {
        SampleInput in = stage.sampleInput();
        in.begin(plan.epoch(), sample);
        dataset.write(sample, in.writer());
        checkComplete(sample, in.writer(), stage.input());
        long start = System.nanoTime();
        try {
          stage.apply(in, writer);
        } finally {
          counters.addTransform(System.nanoTime() - start);
        }
      }
      checkComplete(sample, writer, layout.schema());
      return true;
    } catch (Exception e) {
      if (onBadSample == OnBadSample.SKIP) {
        counters.addSkipped(new SkippedSample(plan.epoch(), batch, sample, String.valueOf(e)));
        return false;
      }
      throw badSample(sample, batch, row, length, e, "; to skip bad samples, set onBadSample=skip");
    } catch (Throwable t) {
      throw badSample(sample, batch, row, length, t, "");
    }
  }

  /**
   * Lets the dataset report a failure of this batch's reads that surfaced late ({@link
   * MapDataset#checkBatch}); its report wins over {@code failed}, the batch's own failure, which it
   * then carries as suppressed.
   */
  private void checkDataset(Throwable failed) throws Exception {
    checked.set(failed);
    Throwable report = datasetReport(failed);
    if (report == null) {
      return;
    }
    if (failed != null && report != failed) {
      report.addSuppressed(failed);
    }
    checked.set(report);
    if (report instanceof Error error) {
      throw error;
    }
    throw (Exception) report;
  }

  /** Late faults asked about in a row at most: each delivery clears the JVM's pending fault. */
  private static final int MAX_LATE_FAULTS = 8;

  /**
   * What the dataset says of {@code failure} ({@link MapDataset#checkBatch}): its report, or null
   * if it has none. An {@link InternalError} met meanwhile is a fault of the batch's earlier reads
   * of mapped memory that the JVM delivered late, at this very call into the dataset (HotSpot
   * reports such a fault at the thread's next call into its runtime): the dataset is asked about
   * that one in turn, so that it can name the cause (a shard file that changed) rather than the
   * JVM's bare error.
   */
  private Throwable datasetReport(Throwable failure) {
    Throwable asked = failure;
    for (int late = 0; ; late++) {
      try {
        dataset.checkBatch(asked);
        return asked == failure ? null : asked;
      } catch (Exception | Error e) {
        if (!(e instanceof InternalError) || e == asked || late == MAX_LATE_FAULTS) {
          return e;
        }
        asked = e;
      }
    }
  }

  /**
   * The dataset's report of {@code failure} ({@link MapDataset#checkBatch}), or {@code failure}; a
   * failure the write already had the dataset check, as it is.
   */
  @Override
  public Throwable explain(Throwable failure) {
    if (failure == checked.get()) {
      return failure;
    }
    Throwable report = datasetReport(failure);
    if (report == null) {
      return failure;
    }
    if (report != failure) {
      report.addSuppressed(failure);
    }
    return report;
  }

  /** Stops a write under way before its next sample: a slow batch need not be finished. */
  @Override
  public void cancel() {
    cancelled = true;
  }

  private BatchLoadException badSample(
      int sample, int batch, int row, int length, Throwable t, String remedy) {
    return new BatchLoadException(
        loader,
        Stage.FILL,
        plan.epoch(),
        batch,
        sample,
        String.format("sample %d (row %d of %d): %s%s", sample, row, length, t, remedy),
        t);
  }

  private void checkComplete(int sample, SampleWriter writer, Schema schema) {
    int missing = writer.firstIncompleteField();
    if (missing >= 0) {
      Field field = schema.field(missing);
      throw new IllegalStateException(
          String.format(
              "sample %d wrote %d of the %d values of field '%s' %s%s (expected: every value of "
                  + "every field, or its row would keep another sample's values)",
              sample,
              writer.writtenElements(missing),
              field.elements(),
              field.name(),
              field.dtype().label(),
              field.shapeText()));
    }
  }
}
