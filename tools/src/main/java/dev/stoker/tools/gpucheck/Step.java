package dev.stoker.tools.gpucheck;

/**
 * The synthetic training step as the overlap part drives it (on the GPU: the spin kernel of {@code
 * gpucheck.device.SpinStep}). Used from one thread.
 */
public interface Step extends AutoCloseable {
  /**
   * Queues one step on the batch at device address {@code src}, after the copy that {@code
   * copyEvent} marks; it runs {@code nanos} ns. Returns an event recorded after it, for {@code
   * DeviceBuffer.reuseAfter}.
   */
  long run(long copyEvent, long src, long nanos);

  /** Waits for the steps queued and forgets them. */
  void reset();

  /** Waits for the steps queued since {@link #reset()}; returns how long they ran, in ns. */
  long finish();

  @Override
  void close();
}
