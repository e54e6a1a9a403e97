/**
 * The CUDA calls of the GPU check ({@code dev.stoker.tools.gpucheck}) that are no part of a loader:
 * device facts and reading device memory back ({@link dev.stoker.tools.gpucheck.device.GpuInfo}),
 * raw host-to-device copies to compare the loader with ({@link
 * dev.stoker.tools.gpucheck.device.RawCopies}), and the synthetic training step, a hand-written PTX
 * kernel ({@link dev.stoker.tools.gpucheck.device.SpinStep}, with its {@code spin.ptx} beside it).
 * It is the only package of the tools that imports JCuda, as loader-core's device is the only one
 * of the loader; it imports nothing of Stoker, and only the GPU check uses it.
 */
package dev.stoker.tools.gpucheck.device;
