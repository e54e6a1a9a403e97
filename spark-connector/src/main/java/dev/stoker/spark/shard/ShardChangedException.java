package dev.stoker.spark.shard;

import java.io.IOException;

/**
 * A read of a rank's mapped shard failed: one of its files changed under the mapping (or the disk
 * failed a read). Names the files and what they hold now; never has a JVM error as cause.
 */
public final class ShardChangedException extends IOException {
  private static final long serialVersionUID = 1L;

  ShardChangedException(String message) {
    super(message);
  }

  /**
   * This report without what it suppressed. The loader attaches a batch's own failure to the
   * dataset's report of it, and for a faulted read of the mapping that failure carries the JVM's
   * {@code InternalError}, whose text would then stand in the task's failure beside the report that
   * says what it means.
   */
  public ShardChangedException alone() {
    ShardChangedException alone = new ShardChangedException(getMessage());
    alone.setStackTrace(getStackTrace());
    return alone;
  }
}
