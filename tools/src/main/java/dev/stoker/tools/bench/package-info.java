/**
 * Measuring a loader: the reference workloads, by index or streamed ({@link
 * dev.stoker.tools.bench.ReferenceWorkloads}, {@link dev.stoker.tools.bench.Workload}), the copy
 * bandwidth of one thread and of all cores they are compared with ({@link
 * dev.stoker.tools.bench.MemcpyBaseline}), one measured run ({@link
 * dev.stoker.tools.bench.LoaderBenchmark}) with its heap allocation ({@link
 * dev.stoker.tools.bench.AllocationProbe}) and a sweep over workers, prefetch and pinning ({@link
 * dev.stoker.tools.bench.Sweep}). It uses the JDK, SLF4J and loader-core as a user does (the root
 * package, its metrics, direct host memory, the samplers' epoch order for the streamed workloads),
 * never the pipeline; nothing of Spark or the connector, so that the GPU check, which runs its
 * workloads, needs neither. The libraries do not import it.
 */
package dev.stoker.tools.bench;
