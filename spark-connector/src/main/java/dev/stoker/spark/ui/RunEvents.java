package dev.stoker.spark.ui;

import org.apache.spark.SparkContext;

/** One run's events after its start: its ranks' figures and its end. Thread-safe. */
public final class RunEvents {
  private final StokerUi ui;
  private final SparkContext spark;
  private final String runId;

  RunEvents(StokerUi ui, SparkContext spark, String runId) {
    this.ui = ui;
    this.spark = spark;
    this.runId = runId;
  }

  public String runId() {
    return runId;
  }

  /** A rank's figures as they reached the driver. */
  public void rank(RankFigures figures) {
    ui.post(spark, new StokerRankUpdate(runId, System.currentTimeMillis(), figures));
  }

  /** The end of the run; {@code failure} null when it succeeded. */
  public void ended(String failure) {
    ui.post(spark, new StokerRunEnd(runId, System.currentTimeMillis(), failure));
  }
}
