/**
 * Host memory for batches: the {@link dev.stoker.loader.memory.HostAllocator} interface with its
 * direct-memory implementation ({@link dev.stoker.loader.memory.DirectAllocator}), one over a
 * mapped file another process can map too ({@link dev.stoker.loader.memory.SharedFileAllocator}),
 * the blocks they hand out ({@link dev.stoker.loader.memory.HostMemory}), and {@link
 * dev.stoker.loader.memory.SlotPool}, the loader-lifetime pool of batch-sized slots sized by a
 * {@link dev.stoker.loader.memory.SlotBudget}. Pinned allocators (CUDA) implement the same
 * interface from the device side. Of Stoker this package may import only util and metrics: not the
 * loader, samplers, devices, the pipeline or stats, and no JCuda or Spark.
 */
package dev.stoker.loader.memory;
