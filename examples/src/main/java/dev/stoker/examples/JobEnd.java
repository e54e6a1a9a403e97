package dev.stoker.examples;

import org.apache.spark.sql.SparkSession;

/**
 * How an example's {@code main} ends. On a local master the barrier tasks ran in this JVM, and
 * Spark 3.5 leaves a thread of theirs behind that never ends ("Barrier task timer for barrier()
 * calls."): the JVM would wait on it forever after {@code main} returned, so there {@code main}
 * exits explicitly, 0 or 1. Elsewhere it returns or throws as usual, since a cluster manager such
 * as YARN takes an exit from the driver's {@code main} for a failure.
 */
public final class JobEnd {
  /** A job's body. */
  @FunctionalInterface
  public interface Body {
    void run() throws Exception;
  }

  private JobEnd() {}

  /** Runs {@code body}, stops {@code spark}, and ends the JVM when its master is local. */
  public static void run(SparkSession spark, Body body) throws Exception {
    boolean local = spark.sparkContext().isLocal();
    boolean failed = false;
    try {
      body.run();
    } catch (Exception | Error e) {
      if (!local) {
        throw e;
      }
      e.printStackTrace(); // what the JVM prints for an exception out of main
      failed = true;
    } finally {
      spark.stop();
    }
    if (local) {
      System.exit(failed ? 1 : 0);
    }
  }
}
