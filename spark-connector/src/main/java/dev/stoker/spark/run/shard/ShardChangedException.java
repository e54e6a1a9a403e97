package dev.stoker.spark.run.shard;

import java.io.IOException;

/**
 * A read of a rank's mapped shard failed: one of its files changed under the mapping (or the
 * disk failed a read). Names the files and what they hold now; never has a JVM error as cause.
 */
public final class ShardChangedException extends IOException {
  private static final long serialVersionUID = 1L;

  ShardChangedException(String message) {
    super(message);
  }
}
