package dev.stoker.spark.ui;

import org.apache.spark.scheduler.SparkListenerEvent;

/**
 * A rank's figures as the driver received them (with a heartbeat, or at the end of its task); kept
 * in the event log, so that the History Server draws the same page.
 *
 * @param runId the run's id
 * @param time when the driver received them, in ms since the epoch
 * @param figures the rank's figures
 */
public record StokerRankUpdate(String runId, long time, RankFigures figures)
    implements SparkListenerEvent {}
