package dev.stoker.spark.ui;

import java.io.Serializable;
import java.util.Locale;

/**
 * What one rank of a run measured so far: its place, its progress and its input pipeline's timings,
 * as the rank's watcher sends them with the executor's heartbeats and once more when its task ends.
 * Serializable for the accumulator that carries it and for the event log (Jackson).
 *
 * @param rank the rank
 * @param executorId the executor that runs it (filled in on the driver), or null
 * @param host the executor's host (filled in on the driver), or null
 * @param device the device batches go to ({@code cpu}, {@code cuda:0}, ...)
 * @param gpu the address of the task's GPU, or null
 * @param epoch the epoch that runs now (or ran last)
 * @param batches batches delivered to the rank function, over all epochs
 * @param batchesPerEpoch batches per epoch, the same on every rank
 * @param epochs epochs the run was declared to have, 0 when not known
 * @param samples samples delivered, over all epochs
 * @param samplesPerSecond samples per second of the epochs' wall time
 * @param waitMillis exposed wait: time the rank function spent waiting for its next batch
 * @param stepMillis time the rank function spent with its batches (its training step)
 * @param fillMillis mean time to fill one batch on a worker, this epoch
 * @param transformMillis the part of the fill spent in the per-sample transform (decoding,
 *     augmenting), this epoch; 0 without one
 * @param transferMillis mean time to copy one batch to the device, this epoch
 * @param slotWaitShare share of this epoch the next batch waited for a free host slot
 * @param storageWaitMillis time the rank's reading waited for remote storage (an object store,
 *     HDFS), over all epochs
 * @param numWorkers loader workers
 * @param droppedRows rows of the rank's input no batch holds in an epoch (dropLast)
 * @param skippedSamples samples left out as bad ({@code onBadSample=skip}), over all epochs
 * @param verdict the bottleneck verdict of this epoch ({@code pipeline-bound}, ...), or null
 * @param verdictSummary the verdict with the numbers behind it and the knob to turn, or null
 * @param finished whether the rank's function has returned
 */
public record RankFigures(
    int rank,
    String executorId,
    String host,
    String device,
    String gpu,
    int epoch,
    long batches,
    int batchesPerEpoch,
    int epochs,
    long samples,
    double samplesPerSecond,
    long waitMillis,
    long stepMillis,
    double fillMillis,
    double transformMillis,
    double transferMillis,
    double slotWaitShare,
    long storageWaitMillis,
    int numWorkers,
    long droppedRows,
    long skippedSamples,
    String verdict,
    String verdictSummary,
    boolean finished)
    implements Serializable {

  /** The batches a run of {@code epochs} epochs delivers, or -1 when the epochs are not known. */
  public long expectedBatches() {
    return epochs <= 0 ? -1 : (long) epochs * batchesPerEpoch;
  }

  /** The share of the rank function's time spent waiting for batches: exposed wait. */
  public double waitShare() {
    long all = waitMillis + stepMillis;
    return all <= 0 ? 0 : (double) waitMillis / all;
  }

  /** These figures with the place the driver knows the rank runs at. */
  public RankFigures at(String executor, String onHost) {
    return new RankFigures(
        rank,
        executor,
        onHost,
        device,
        gpu,
        epoch,
        batches,
        batchesPerEpoch,
        epochs,
        samples,
        samplesPerSecond,
        waitMillis,
        stepMillis,
        fillMillis,
        transformMillis,
        transferMillis,
        slotWaitShare,
        storageWaitMillis,
        numWorkers,
        droppedRows,
        skippedSamples,
        verdict,
        verdictSummary,
        finished);
  }

  /** These figures, marked as the rank's last. */
  public RankFigures ended() {
    return new RankFigures(
        rank,
        executorId,
        host,
        device,
        gpu,
        epoch,
        batches,
        batchesPerEpoch,
        epochs,
        samples,
        samplesPerSecond,
        waitMillis,
        stepMillis,
        fillMillis,
        transformMillis,
        transferMillis,
        slotWaitShare,
        storageWaitMillis,
        numWorkers,
        droppedRows,
        skippedSamples,
        verdict,
        verdictSummary,
        true);
  }

  /** One line, as the Spark UI's stage page shows the accumulator per task. */
  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rank %d: %d batches, %.0f samples/s, waited %.0f%% (%d ms)" + ", %s",
        rank,
        batches,
        samplesPerSecond,
        waitShare() * 100,
        waitMillis,
        verdict == null ? "no verdict yet" : verdict);
  }
}
