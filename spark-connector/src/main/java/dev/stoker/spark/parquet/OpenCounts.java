package dev.stoker.spark.parquet;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many of the readers that hold files, memory or threads are open in this JVM, kind by kind:
 * the one place the connector counts them. Each is 0 once every read and task has ended, which the
 * leak checks of the tests (Java and Python) assert.
 */
public final class OpenCounts {
  /** A kind of reader that holds resources until it is closed. */
  public enum Kind {
    /** A {@code format("stoker")} rank's reader in its task, started and not yet closed. */
    RANK_READERS,
    /** Spark's vectorized Parquet reader under a rank's stream. */
    SPARK_PARQUET_READERS,
    /** Stoker's own Parquet file reader under a rank's stream. */
    PARQUET_FILE_READERS,
    /** A Python rank's loader feeding a Python process (its thread and shared-memory file). */
    PYTHON_RANKS
  }

  private static final AtomicInteger[] OPEN = new AtomicInteger[Kind.values().length];

  static {
    for (int k = 0; k < OPEN.length; k++) {
      OPEN[k] = new AtomicInteger();
    }
  }

  private OpenCounts() {}

  /** Counts one more {@code kind} open; each call is matched by one {@link #closed}. */
  public static void opened(Kind kind) {
    OPEN[kind.ordinal()].incrementAndGet();
  }

  /** Counts one {@code kind} closed. */
  public static void closed(Kind kind) {
    OPEN[kind.ordinal()].decrementAndGet();
  }

  /** How many {@code kind} are open. */
  public static int open(Kind kind) {
    return OPEN[kind.ordinal()].get();
  }

  /** How many of the kind named {@code kind} ({@link Kind#name()}) are open: for Python. */
  public static int open(String kind) {
    return open(Kind.valueOf(kind));
  }
}
