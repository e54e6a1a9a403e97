package dev.stoker.spark.ui;

import org.apache.spark.scheduler.SparkListenerEvent;

/**
 * A {@code format("stoker")} scan planned its ranks for a query: the Stoker page lists it with a
 * link to the query's page in the SQL tab, where the scan node shows its per-task metrics.
 *
 * @param readId the scan's id, unique in the application
 * @param time when it was planned, in ms since the epoch
 * @param executionId the SQL execution that runs it, or null when not known
 * @param input what it reads
 * @param ranks ranks (partitions)
 * @param rows rows planned
 * @param batchesPerRank batches each rank delivers
 * @param batchSize rows per batch
 * @param droppedRows rows no rank reads (dropLast)
 * @param order how far the epoch's order is from a random permutation ({@code
 *     PlanQuality.Measure#describe}), or null where not measured
 */
public record StokerRead(
    String readId,
    long time,
    String executionId,
    String input,
    int ranks,
    long rows,
    int batchesPerRank,
    int batchSize,
    long droppedRows,
    String order)
    implements SparkListenerEvent {}
