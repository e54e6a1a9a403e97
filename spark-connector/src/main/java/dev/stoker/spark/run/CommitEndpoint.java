package dev.stoker.spark.run;

import dev.stoker.loader.state.InputFingerprint;
import java.io.Serializable;

/**
 * What a rank needs to commit its loader's state and to ask where to start: the driver's commit
 * server (address, port, the run's secret) and what the ranks' states are made of (the epoch whose
 * row order the run planned, or, with {@code orderFollowsEpoch}, each epoch its own; the shuffle
 * window's rows; the files' fingerprint).
 */
record CommitEndpoint(
    String host,
    int port,
    byte[] secret,
    int orderEpoch,
    boolean orderFollowsEpoch,
    int windowRows,
    InputFingerprint input)
    implements Serializable {
  /** The endpoint of a run that reads every epoch in the order of {@code orderEpoch}. */
  CommitEndpoint(
      String host,
      int port,
      byte[] secret,
      int orderEpoch,
      int windowRows,
      InputFingerprint input) {
    this(host, port, secret, orderEpoch, false, windowRows, input);
  }

  /** The epoch whose order the rows of epoch {@code epoch} were planned in. */
  int orderEpochOf(int epoch) {
    return orderFollowsEpoch ? epoch : orderEpoch;
  }
}
