package dev.stoker.spark.ui;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.apache.spark.util.kvstore.KVIndex;

/** A run as the Stoker page shows it, kept in the application's status store. */
public final class RunView {
  @KVIndex public final String runId;
  public final StokerRunStart start;

  /** When the run ended, in ms since the epoch; 0 while it runs. */
  public final long end;

  /** Why it failed, or null. */
  public final String failure;

  @JsonCreator
  public RunView(
      @JsonProperty("runId") String runId,
      @JsonProperty("start") StokerRunStart start,
      @JsonProperty("end") long end,
      @JsonProperty("failure") String failure) {
    this.runId = runId;
    this.start = start;
    this.end = end;
    this.failure = failure;
  }

  boolean running() {
    return end == 0;
  }
}
