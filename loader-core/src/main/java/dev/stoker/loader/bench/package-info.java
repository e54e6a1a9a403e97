/**
 * Measuring a loader: the reference workloads, by index or streamed
 * ({@link dev.stoker.loader.bench.ReferenceWorkloads}, {@link dev.stoker.loader.bench.Workload}),
 * the copy bandwidth of one thread and of all cores they are compared with
 * ({@link dev.stoker.loader.bench.MemcpyBaseline}), one measured run
 * ({@link dev.stoker.loader.bench.LoaderBenchmark}) with its heap allocation
 * ({@link dev.stoker.loader.bench.AllocationProbe}) and a sweep over workers, prefetch and pinning
 * ({@link dev.stoker.loader.bench.Sweep}). It uses the JDK, SLF4J and the loader's public API as a
 * user does (the root package, its metrics, direct host memory), never the pipeline; the loader
 * does not import bench.
 */
package dev.stoker.loader.bench;
