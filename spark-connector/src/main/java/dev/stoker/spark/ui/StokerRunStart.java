package dev.stoker.spark.ui;

import org.apache.spark.scheduler.SparkListenerEvent;

/**
 * A run began: posted on the driver before its barrier stage, kept in the event log.
 *
 * @param runId the run's id, unique in the application
 * @param time when it began, in ms since the epoch
 * @param description what the run reads, as its Spark job says
 * @param worldSize ranks
 * @param batchSize samples per batch
 * @param numWorkers loader workers per rank
 * @param prefetchFactor batches per worker ahead
 */
public record StokerRunStart(
    String runId,
    long time,
    String description,
    int worldSize,
    int batchSize,
    int numWorkers,
    int prefetchFactor)
    implements SparkListenerEvent {}
