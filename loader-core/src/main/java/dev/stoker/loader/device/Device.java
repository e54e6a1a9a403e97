package dev.stoker.loader.device;

import dev.stoker.loader.memory.HostAllocator;

/**
 * The device a loader delivers batches to. A host device ({@link #isHost()}) uses batches where
 * the workers filled them; any other device copies each batch through a {@link TransferEngine}
 * in a stage of its own, so the copy of batch k+1 overlaps the work on batch k.
 */
public interface Device extends AutoCloseable {
  /** A name for messages and metrics, e.g. {@code cpu} or {@code cuda:0}. */
  String name();

  /** True when batches stay in host memory: no transfer stage. */
  boolean isHost();

  /**
   * The allocator for host slots. With {@code pinMemory} a device that can pin returns page-locked
   * memory; one that cannot returns direct memory and says so once.
   */
  HostAllocator hostAllocator(boolean pinMemory);

  /**
   * Opens a transfer engine for slots of {@code slotBytes}, holding at most {@code depth} device
   * slots at a time.
   *
   * @throws UnsupportedOperationException on a host device
   */
  TransferEngine openTransfer(String name, int slotBytes, int depth);

  @Override
  void close();
}
