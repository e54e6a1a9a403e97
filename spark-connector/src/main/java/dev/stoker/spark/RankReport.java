package dev.stoker.spark;

import java.io.Serializable;
import java.util.Locale;

/**
 * What one rank loaded and how fast it delivered it.
 *
 * @param rows rows of the input in the rank's shard
 * @param samples samples of the rank's dataset (the same on every rank)
 * @param droppedRows rows of the shard no batch holds in an epoch (dropLast)
 * @param paddedRows samples that repeat shard rows to reach the others' count (no dropLast)
 * @param skippedSamples samples left out as bad ({@code onBadSample=skip}: an image that does not
 *     decode, ...) over every epoch; their batches kept their shape with fewer valid rows
 * @param epochs epochs the rank's function ran, in full or in part
 * @param batches batches delivered over all epochs
 * @param samplesPerSecond samples delivered per second of the epochs' wall time
 * @param waitFraction share of the last epoch its consumer waited for data
 * @param verdict the bottleneck verdict of the last epoch ({@code compute-bound}, ...), or null
 *     when no epoch ran
 * @param verdictSummary the verdict with its explanation, or null
 * @param device the device batches were delivered to
 * @param gpuAddress the address of the task's GPU, or null
 * @param shardFolder where the shard was cached on the executor (removed since)
 * @param shardBytes bytes of the shard
 * @param shardSeconds time to read the rank's rows into its shard
 * @param stageAttempt the attempt of the barrier stage that delivered this (0 unless retried)
 */
public record RankReport(
    int rank,
    long rows,
    int samples,
    long droppedRows,
    long paddedRows,
    long skippedSamples,
    int batchesPerEpoch,
    int epochs,
    long batches,
    double samplesPerSecond,
    double waitFraction,
    String verdict,
    String verdictSummary,
    String device,
    String gpuAddress,
    String executorId,
    String shardFolder,
    long shardBytes,
    double shardSeconds,
    int stageAttempt)
    implements Serializable {

  /** One line for the load report. */
  public String line() {
    return String.format(
        Locale.ROOT,
        "rank %d: %d rows, %d dropped, %d padded, %d skipped as bad, %d batches/epoch, "
            + "%d epochs, %.0f samples/s, waited %.0f%%, %s, device %s%s, executor %s, "
            + "shard %.1f s",
        rank,
        rows,
        droppedRows,
        paddedRows,
        skippedSamples,
        batchesPerEpoch,
        epochs,
        samplesPerSecond,
        waitFraction * 100,
        verdict == null ? "no epoch run" : verdict,
        device,
        gpuAddress == null ? "" : " (gpu " + gpuAddress + ")",
        executorId,
        shardSeconds);
  }
}
