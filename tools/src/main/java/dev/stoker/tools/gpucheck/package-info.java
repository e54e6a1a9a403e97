/**
 * The GPU check ({@code scripts/gpu-check.sh}): {@link dev.stoker.tools.gpucheck.GpuCheck} runs the
 * loader on a CUDA device and writes {@code gpu-check.json} and a table: correctness of the copies
 * and memory back to its start after close, host-to-device bandwidth against raw copies, GPU busy
 * fraction under a synthetic step, and the same workload fed by PyTorch's DataLoader. It reads data
 * through {@code DataLoader} as users do: it may use the loader, its devices, the tools' bench and
 * {@code gpucheck.device}, but not the pipeline, and no JCuda (its CUDA calls are {@code
 * gpucheck.device}'s). Nothing of Spark or the connector either: the check's kit carries
 * loader-core and the tools jar only. Nothing outside the GPU check imports it.
 */
package dev.stoker.tools.gpucheck;
