package dev.stoker.tools.spark;

import java.util.Locale;

/**
 * The figures of one {@link SparkIngestBench} run: rows/s per repeat, and their medians. See the
 * bench for what the work and wall clocks time, and how the first batch is timed.
 *
 * @param firstBatchSeconds per repeat, from the start of the ranks' stage to the first batch on the
 *     slowest rank
 * @param firstBatchFromCallSeconds per repeat, from the driver's call to the same first batch
 * @param stokerRunSeconds per repeat, the driver's call to the runner from start to end (the epochs
 *     and the one from the shard cache)
 */
public record SparkIngestResult(
    SparkIngestBench.Config config,
    String sparkVersion,
    int inputPartitions,
    long parquetBytes,
    double[] stokerWork,
    double[] stokerWall,
    double[] baselineWork,
    double[] baselineWall,
    double[] stokerShuffledWork,
    double[] stokerCachedEpoch,
    double[] firstBatchSeconds,
    double[] firstBatchFromCallSeconds,
    double[] stokerRunSeconds) {

  public double stokerRowsPerSecond() {
    return SparkIngestBench.median(stokerWork);
  }

  public double baselineRowsPerSecond() {
    return SparkIngestBench.median(baselineWork);
  }

  /** Stoker's rows/s over the baseline's, from the medians. */
  public double ratio() {
    return stokerRowsPerSecond() / baselineRowsPerSecond();
  }

  public double wallRatio() {
    return SparkIngestBench.median(stokerWall) / SparkIngestBench.median(baselineWall);
  }

  /** Median seconds from the start of the ranks' stage to the first batch on the slowest rank. */
  public double firstBatchSecondsMedian() {
    return SparkIngestBench.median(firstBatchSeconds);
  }

  /** A few lines for people. */
  public String text() {
    return String.format(
        Locale.ROOT,
        "workload spark: %,d rows of float32[%d] + int label, "
            + "%d epoch(s), batch %d, %d ranks on local[%d], numWorkers %d, Spark %s, %d input "
            + "partitions, Parquet %,d bytes, median of %d%n"
            + "  stoker   %,12.0f rows/s work  %,12.0f rows/s wall%n"
            + "  baseline %,12.0f rows/s work  %,12.0f rows/s wall%n"
            + "  ratio    %12.2f x work      %12.2f x wall%n"
            + "  stoker with one shuffle %,12.0f rows/s work; an epoch from the shard cache "
            + "%,12.0f rows/s%n"
            + "  first batch %.3f s after the ranks' stage started (%.3f s after the call), "
            + "slowest rank%n",
        config.rows(),
        config.width(),
        config.epochs(),
        config.batchSize(),
        config.ranks(),
        config.ranks(),
        config.numWorkers(),
        sparkVersion,
        inputPartitions,
        parquetBytes,
        config.repeats(),
        stokerRowsPerSecond(),
        SparkIngestBench.median(stokerWall),
        baselineRowsPerSecond(),
        SparkIngestBench.median(baselineWall),
        ratio(),
        wallRatio(),
        SparkIngestBench.median(stokerShuffledWork),
        SparkIngestBench.median(stokerCachedEpoch),
        firstBatchSecondsMedian(),
        SparkIngestBench.median(firstBatchFromCallSeconds));
  }

  /** The figures as JSON. */
  public String json() {
    return String.format(
        Locale.ROOT,
        "{%n"
            + "  \"workload\": \"spark\",%n"
            + "  \"rows\": %d,%n  \"ranks\": %d,%n  \"epochs\": %d,%n  \"batch_size\": %d,%n"
            + "  \"width\": %d,%n"
            + "  \"repeats\": %d,%n  \"num_workers\": %d,%n  \"spark_version\": \"%s\",%n"
            + "  \"input_partitions\": %d,%n  \"parquet_bytes\": %d,%n"
            + "  \"stoker_rows_per_s\": %.1f,%n  \"baseline_rows_per_s\": %.1f,%n"
            + "  \"ratio\": %.3f,%n"
            + "  \"stoker_wall_rows_per_s\": %.1f,%n  \"baseline_wall_rows_per_s\": %.1f,%n"
            + "  \"wall_ratio\": %.3f,%n"
            + "  \"stoker_shuffled_rows_per_s\": %.1f,%n"
            + "  \"stoker_cached_epoch_rows_per_s\": %.1f,%n"
            + "  \"first_batch_s\": %.3f,%n  \"first_batch_from_call_s\": %.3f,%n"
            + "  \"stoker_runs\": %s,%n  \"baseline_runs\": %s,%n"
            + "  \"first_batch_runs\": %s,%n  \"stoker_run_seconds\": %s%n}%n",
        config.rows(),
        config.ranks(),
        config.epochs(),
        config.batchSize(),
        config.width(),
        config.repeats(),
        config.numWorkers(),
        sparkVersion,
        inputPartitions,
        parquetBytes,
        stokerRowsPerSecond(),
        baselineRowsPerSecond(),
        ratio(),
        SparkIngestBench.median(stokerWall),
        SparkIngestBench.median(baselineWall),
        wallRatio(),
        SparkIngestBench.median(stokerShuffledWork),
        SparkIngestBench.median(stokerCachedEpoch),
        firstBatchSecondsMedian(),
        SparkIngestBench.median(firstBatchFromCallSeconds),
        array(stokerWork),
        array(baselineWork),
        array(firstBatchSeconds, "%.3f"),
        array(stokerRunSeconds, "%.3f"));
  }

  private static String array(double[] values) {
    return array(values, "%.1f");
  }

  private static String array(double[] values, String format) {
    StringBuilder text = new StringBuilder("[");
    for (int i = 0; i < values.length; i++) {
      text.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, format, values[i]));
    }
    return text.append(']').toString();
  }
}
