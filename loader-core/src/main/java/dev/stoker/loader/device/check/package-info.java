/**
 * The CUDA calls of the GPU check ({@code dev.stoker.loader.gpucheck}) that are no part of a
 * loader: device facts and reading device memory back ({@link
 * dev.stoker.loader.device.check.GpuInfo}), raw host-to-device copies to compare the loader with
 * ({@link dev.stoker.loader.device.check.RawCopies}), and the synthetic training step, a
 * hand-written PTX kernel ({@link dev.stoker.loader.device.check.SpinStep}). It lives under
 * device because only device may import JCuda; like device it imports nothing else of Stoker,
 * and only the GPU check uses it.
 */
package dev.stoker.loader.device.check;
