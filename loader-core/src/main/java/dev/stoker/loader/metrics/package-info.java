/**
 * What a loader measures about itself: live per-epoch counters that the pipeline's threads write
 * without allocating ({@link dev.stoker.loader.metrics.EpochCounters}, {@link
 * dev.stoker.loader.metrics.WorkerCounters}), immutable snapshots of them ({@link
 * dev.stoker.loader.metrics.EpochMetrics}, and a loader's recent epochs in {@link
 * dev.stoker.loader.metrics.LoaderMetrics}), and the {@link
 * dev.stoker.loader.metrics.BottleneckReport} that reads a snapshot as the classic "is the input
 * pipeline the bottleneck?" checklist and gives its {@link dev.stoker.loader.metrics.Verdict}. Of
 * Stoker this package may import only util: the pipeline writes here and the loader reads here,
 * never the other way round.
 */
package dev.stoker.loader.metrics;
