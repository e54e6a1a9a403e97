/**
 * Measuring a loader: the reference workloads, by index or streamed
 * ({@link dev.stoker.loader.bench.ReferenceWorkloads}, {@link dev.stoker.loader.bench.Workload}),
 * the copy bandwidth of one thread and of all cores they are compared with
 * ({@link dev.stoker.loader.bench.MemcpyBaseline}), one measured run
 * ({@link dev.stoker.loader.bench.LoaderBenchmark}) and a sweep over workers, prefetch and pinning
 * ({@link dev.stoker.loader.bench.Sweep}). Uses the JDK, SLF4J and the loader's public API only.
 */
package dev.stoker.loader.bench;
