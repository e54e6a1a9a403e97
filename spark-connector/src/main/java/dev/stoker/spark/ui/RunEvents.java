package dev.stoker.spark.ui;

import java.util.List;
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

  /**
   * The end of the run; {@code failure} null when it succeeded, {@code epochOrders} the report's
   * measures of each epoch's order (may be empty).
   */
  public void ended(String failure, List<String> epochOrders) {
    ui.post(spark, new StokerRunEnd(runId, System.currentTimeMillis(), failure, epochOrders));
  }
}
