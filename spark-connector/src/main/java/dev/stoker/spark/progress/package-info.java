/**
 * A rank's progress on its way to the driver: the accumulators its figures travel in with the
 * executors' heartbeats ({@link dev.stoker.spark.progress.ProgressCounters}), the rank's watcher
 * thread that fills them ({@link dev.stoker.spark.progress.ProgressWatcher}) and the driver's
 * listener that hands them to a run's callback and to the Stoker page ({@link
 * dev.stoker.spark.progress.ProgressTracker}). Training runs and Python ranks share them.
 */
package dev.stoker.spark.progress;
