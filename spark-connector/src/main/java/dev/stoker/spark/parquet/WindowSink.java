package dev.stoker.spark.parquet;

import java.io.IOException;

/**
 * Where a rank's stream also hands each window it reads, in reading order, before the window is
 * shuffled into batches: e.g. the writer of the rank's shard cache.
 */
public interface WindowSink {
  /**
   * Takes rows {@code [0, rows)} of {@code window} (the stream's next rows); the window is reused
   * once this returns. A failure fails the stream.
   */
  void filled(ShuffleWindow window, int rows) throws IOException;

  /** The stream ended, {@code complete} if every row of the rank went through {@link #filled}. */
  void closed(boolean complete);
}
