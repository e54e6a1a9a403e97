/**
 * Host memory for batches: the {@link dev.stoker.loader.memory.HostAllocator} interface with its
 * direct-memory implementation, and {@link dev.stoker.loader.memory.SlotPool}, a pool of
 * fixed-size slots under a byte budget. Pinned allocators (CUDA) implement the same interface in
 * the device package; nothing here imports JCuda, Spark or the pipeline.
 */
package dev.stoker.loader.memory;
