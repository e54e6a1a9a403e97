package dev.stoker.spark.ui;

import org.apache.spark.SparkConf;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.status.AppHistoryServerPlugin;
import org.apache.spark.status.ElementTrackingStore;
import org.apache.spark.ui.SparkUI;
import scala.collection.immutable.Nil$;
import scala.collection.immutable.Seq;

/**
 * The Stoker page in the Spark History Server: found through {@code ServiceLoader}, it rebuilds the
 * page's store from the Stoker events of an event log and adds the tab to applications that have a
 * Stoker run. Its listeners are a {@code scala.collection.immutable.Seq}, which Spark 3.5 (a {@code
 * scala.collection.Seq}) and Spark 4 both accept.
 */
public final class StokerHistoryPlugin implements AppHistoryServerPlugin {
  @Override
  public Seq<SparkListener> createListeners(SparkConf conf, ElementTrackingStore store) {
    return Nil$.MODULE$.$colon$colon(new StokerStoreListener(store));
  }

  @Override
  public void setupUI(SparkUI ui) {
    if (StokerPage.hasRuns(ui.store().store())) {
      SparkUiHooks.attach(ui, ui.store().store(), false);
    }
  }
}
