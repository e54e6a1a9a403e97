package dev.stoker.spark;

import dev.stoker.spark.ui.StokerUi;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * The Stoker page in the session's Spark UI: per run and rank, batches delivered, samples/s,
 * exposed wait, the loader's stage times, the bottleneck verdict with the knob to turn, and the
 * straggler. Every run sets it up; the History Server shows it too, from the event log, with the
 * connector's jar on its class path.
 */
public final class StokerUiPage {
  private StokerUiPage() {}

  /**
   * The page's address, set up now if no run did yet; empty when the session has no UI ({@code
   * spark.ui.enabled=false}) or Spark's UI classes do not fit.
   */
  public static Optional<String> address(SparkSession spark) {
    return Optional.ofNullable(StokerUi.of(spark.sparkContext()).address());
  }
}
