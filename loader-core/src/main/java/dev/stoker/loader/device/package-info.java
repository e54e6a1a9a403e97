/**
 * Where batches are used: the {@link dev.stoker.loader.device.Device} interface with the host
 * {@link dev.stoker.loader.device.CpuDevice} and the {@link dev.stoker.loader.device.CudaDevice}
 * (JCuda, loaded on first use and probed once), whose pinned allocator and {@link
 * dev.stoker.loader.device.TransferEngine} copy host slots into {@link
 * dev.stoker.loader.device.DeviceBuffer}s on a stream of the loader's own and mark each copy with a
 * {@link dev.stoker.loader.device.DeviceEvent}. Every CUDA call goes through a small runtime
 * interface, so that tests put a fake behind it. Of Stoker this package imports only memory and
 * util: no datasets, batches or pipeline. It is the only package that may import JCuda.
 */
package dev.stoker.loader.device;
