package dev.stoker.tools.gpucheck;

/** What the check reads of a device besides batches: its memory, and how much is in use. */
public interface DeviceAccess {
  /** Copies {@code target.length} bytes at device address {@code address} into {@code target}. */
  void copyToHost(long address, byte[] target);

  /** Device memory in use, as the device reports it. */
  long usedBytes();
}
