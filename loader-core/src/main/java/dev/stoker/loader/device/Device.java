package dev.stoker.loader.device;

import dev.stoker.loader.memory.HostAllocator;

/**
 * The device a loader delivers batches to. A host device ({@link #isHost()}) uses batches where the
 * workers filled them; any other device copies each batch through a {@link TransferEngine} on a
 * transfer thread of the loader's own, so the copy of batch k+1 overlaps the work on batch k.
 */
public interface Device extends AutoCloseable {
  /** A name for messages and metrics, e.g. {@code cpu} or {@code cuda:0}. */
  String name();

  /** True when batches stay in host memory: no transfer stage. */
  boolean isHost();

  /**
   * A new allocator for one loader's host slots, named {@code name}, with at most {@code limit}
   * bytes out; the loader closes it. With {@code pinMemory} a device that can pin returns
   * page-locked memory; one that cannot returns direct memory and says so once.
   */
  HostAllocator hostAllocator(String name, long limit, boolean pinMemory);

  /**
   * Opens the transfer engine of one loader. Called on the loader's transfer thread, which uses the
   * engine for the loader's whole life and closes it on the same thread (a CUDA context is bound
   * per thread).
   *
   * @throws UnsupportedOperationException on a host device
   */
  TransferEngine openTransfer(TransferSpec spec);

  @Override
  void close();
}
