/**
 * What a loader measures about itself: per-epoch counters written by the pipeline's threads
 * without allocating, immutable snapshots of them ({@link dev.stoker.loader.metrics.EpochMetrics}),
 * and the {@link dev.stoker.loader.metrics.BottleneckReport} that reads a snapshot as the classic
 * "is the input pipeline the bottleneck?" checklist. Imports nothing from the pipeline.
 */
package dev.stoker.loader.metrics;
