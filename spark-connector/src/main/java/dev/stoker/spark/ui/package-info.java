/**
 * Stoker in the Spark UI: the listener events a run posts (they go to the event log), the store a
 * listener builds from them (live in the driver, replayed in the History Server), the Stoker page
 * rendered from that store, and {@link dev.stoker.spark.ui.SparkUiHooks}, the one class that
 * touches Spark's internal UI classes. Nothing here imports the runner, the API or the readers;
 * when Spark's internals do not fit, there is no page and the run goes on.
 */
package dev.stoker.spark.ui;
