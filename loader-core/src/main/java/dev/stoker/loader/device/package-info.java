/**
 * Where batches are used: the {@link dev.stoker.loader.device.Device} interface with the host
 * {@link dev.stoker.loader.device.CpuDevice}, and for a discrete device (CUDA) the
 * {@link dev.stoker.loader.device.TransferEngine} that copies host slots into
 * {@link dev.stoker.loader.device.DeviceBuffer}s and marks each copy with a
 * {@link dev.stoker.loader.device.DeviceEvent}. Of Stoker this package imports only memory and
 * util: no datasets, batches or pipeline. It is the only package that may import JCuda.
 */
package dev.stoker.loader.device;
