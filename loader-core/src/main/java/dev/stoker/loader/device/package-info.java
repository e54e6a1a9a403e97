/**
 * Where batches are used: the {@link dev.stoker.loader.device.Device} interface, the host CPU
 * device, and the transfer engine a discrete device (CUDA) implements to copy host slots to device
 * memory. Only this package may import JCuda.
 */
package dev.stoker.loader.device;
