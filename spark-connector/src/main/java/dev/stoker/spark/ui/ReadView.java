package dev.stoker.spark.ui;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.apache.spark.util.kvstore.KVIndex;

/** A {@code format("stoker")} scan as the Stoker page lists it. */
public final class ReadView {
  @KVIndex public final String readId;
  public final StokerRead read;

  @JsonCreator
  public ReadView(@JsonProperty("readId") String readId, @JsonProperty("read") StokerRead read) {
    this.readId = readId;
    this.read = read;
  }
}
