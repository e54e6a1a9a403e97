/**
 * Measuring a loader: the reference workloads shared with the PyTorch peer
 * ({@link dev.stoker.loader.bench.ReferenceWorkloads}), the single-thread copy bandwidth they are
 * compared with ({@link dev.stoker.loader.bench.MemcpyBaseline}), one measured run
 * ({@link dev.stoker.loader.bench.LoaderBenchmark}) and a sweep over workers, prefetch and pinning
 * ({@link dev.stoker.loader.bench.Sweep}). Uses the JDK, SLF4J and the loader's public API only.
 */
package dev.stoker.loader.bench;
