package dev.stoker.spark.run;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import java.io.Serializable;

/**
 * What a rank needs to commit its loader's state and to ask where to start: the driver's commit
 * server (address, port, the run's secret) and what the ranks' states are made of (the epoch whose
 * row order the run planned, or, with {@code orderFollowsEpoch}, each epoch its own; the shuffle
 * window's rows; the streams of a global order, 0 for an order of ranks; the files' fingerprint).
 */
record CommitEndpoint(
    String host,
    int port,
    byte[] secret,
    int orderEpoch,
    boolean orderFollowsEpoch,
    int windowRows,
    int orderStreams,
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
    this(host, port, secret, orderEpoch, false, windowRows, 0, input);
  }

  /** The state of a rank that has handed out {@code batches} of epoch {@code epoch}'s start. */
  LoaderState startOf(int epoch, int worldSize, LoaderOptions options) {
    LoaderState start =
        LoaderState.startOf(
            options.seed(),
            options.shuffle(),
            epoch,
            orderEpochOf(epoch),
            worldSize,
            options.batchSize(),
            options.dropLast(),
            windowRows,
            input);
    return orderStreams > 0 ? start.inStreams(orderStreams) : start;
  }

  /** The epoch whose order the rows of epoch {@code epoch} were planned in. */
  int orderEpochOf(int epoch) {
    return orderFollowsEpoch ? epoch : orderEpoch;
  }
}
