package dev.stoker.loader.device;

/**
 * Marks the completion of work on a device, such as a copy. A consumer with a stream of its own
 * makes it wait on {@link #handle()} (e.g. {@code cudaStreamWaitEvent}) without blocking the host,
 * or waits on the host with {@link #awaitOnHost()}.
 */
public interface DeviceEvent {
  /** An event that has always completed, for devices whose copies are synchronous. */
  DeviceEvent COMPLETED =
      new DeviceEvent() {
        @Override
        public long handle() {
          return 0;
        }

        @Override
        public boolean isComplete() {
          return true;
        }

        @Override
        public void awaitOnHost() {}

        @Override
        public String toString() {
          return "completed";
        }
      };

  /** The native event handle (e.g. a {@code cudaEvent_t}), or 0 for {@link #COMPLETED}. */
  long handle();

  /** Whether the work has completed, without waiting. */
  boolean isComplete();

  /** Blocks the calling thread until the work has completed. */
  void awaitOnHost() throws InterruptedException;
}
