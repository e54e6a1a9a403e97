package dev.stoker.spark.ui;

import java.util.List;
import org.apache.spark.scheduler.SparkListenerEvent;

/**
 * A run ended: posted on the driver when its barrier stage is over.
 *
 * @param runId the run's id
 * @param time when it ended, in ms since the epoch
 * @param failure why it failed, or null when it succeeded
 * @param epochOrders how far each epoch's order was from a random permutation (the report's {@code
 *     epochOrders}), or empty
 */
public record StokerRunEnd(String runId, long time, String failure, List<String> epochOrders)
    implements SparkListenerEvent {
  public StokerRunEnd {
    epochOrders = epochOrders == null ? List.of() : List.copyOf(epochOrders);
  }

  /** A run's end without measures of its order. */
  public StokerRunEnd(String runId, long time, String failure) {
    this(runId, time, failure, List.of());
  }
}
