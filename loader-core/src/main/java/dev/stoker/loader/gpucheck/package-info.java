/**
 * The GPU check ({@code scripts/gpu-check.sh}): {@link dev.stoker.loader.gpucheck.GpuCheck} runs
 * the loader on a CUDA device and writes {@code gpu-check.json} and a table: correctness of the
 * copies and memory back to its start after close, host-to-device bandwidth against raw copies,
 * GPU busy fraction under a synthetic step, and the same workload fed by PyTorch's DataLoader.
 * It reads data through {@code DataLoader} as users do: it may use the loader, its devices, bench
 * and device.check, but not the pipeline, and no JCuda (its CUDA calls are device.check's).
 */
package dev.stoker.loader.gpucheck;
