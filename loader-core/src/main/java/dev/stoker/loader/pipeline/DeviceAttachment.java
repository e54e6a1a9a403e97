package dev.stoker.loader.pipeline;

import dev.stoker.loader.device.DeviceBuffer;

/**
 * Implemented by what the loader attaches to a host slot: lets the {@link TransferStage} hang the
 * device copy of a batch on the slot that carries it to the consumer.
 */
public interface DeviceAttachment {
  void attachDevice(DeviceBuffer buffer);

  /** Removes and returns the device buffer, or null if none is attached. */
  DeviceBuffer detachDevice();
}
