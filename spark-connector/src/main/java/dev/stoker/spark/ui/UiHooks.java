package dev.stoker.spark.ui;

import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.util.kvstore.KVStore;

/**
 * What Stoker needs of Spark's internal UI classes, behind one interface so that the one class that
 * implements it ({@link SparkUiHooks}) is loaded by name and can fail alone.
 */
interface UiHooks {
  /** The driver's status store, which the Spark UI reads. */
  KVStore liveStore(SparkContext spark);

  /** Posts {@code event} on the driver's listener bus (and so to the event log). */
  void post(SparkContext spark, SparkListenerEvent event);

  /** Adds the Stoker tab to the context's UI over {@code store}; false when there is no UI. */
  boolean attachLive(SparkContext spark, KVStore store);
}
