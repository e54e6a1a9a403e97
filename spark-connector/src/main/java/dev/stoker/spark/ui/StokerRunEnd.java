package dev.stoker.spark.ui;

import org.apache.spark.scheduler.SparkListenerEvent;

/**
 * A run ended: posted on the driver when its barrier stage is over.
 *
 * @param runId the run's id
 * @param time when it ended, in ms since the epoch
 * @param failure why it failed, or null when it succeeded
 */
public record StokerRunEnd(String runId, long time, String failure) implements SparkListenerEvent {}
