package dev.stoker.spark.ui;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.apache.spark.util.kvstore.KVIndex;

/** A run as the Stoker page shows it, kept in the application's status store. */
public final class RunView {
  @KVIndex public final String runId;
  public final StokerRunStart start;

  /** When the run ended, in ms since the epoch; 0 while it runs. */
  public final long end;

  /** Why it failed, or null. */
  public final String failure;

  /** How far each epoch's order was from a random permutation; empty if not measured. */
  public final List<String> epochOrders;

  @JsonCreator
  public RunView(
      @JsonProperty("runId") String runId,
      @JsonProperty("start") StokerRunStart start,
      @JsonProperty("end") long end,
      @JsonProperty("failure") String failure,
      @JsonProperty("epochOrders") List<String> epochOrders) {
    this.runId = runId;
    this.start = start;
    this.end = end;
    this.failure = failure;
    this.epochOrders = epochOrders == null ? List.of() : List.copyOf(epochOrders);
  }

  boolean running() {
    return end == 0;
  }
}
