package dev.stoker.spark.run;

import dev.stoker.loader.state.InputFingerprint;
import java.io.Serializable;

/**
 * What a rank needs to commit its loader's state and to ask where to start: the driver's commit
 * server (address, port, the run's secret) and what the ranks' states are made of (the epoch whose
 * row order the run planned, the shuffle window's rows, the files' fingerprint).
 */
record CommitEndpoint(
    String host, int port, byte[] secret, int orderEpoch, int windowRows, InputFingerprint input)
    implements Serializable {}
