package dev.stoker.spark;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.spark.BarrierTaskContext;

/**
 * Spark's barrier calls ({@code allGather}, {@code barrier}) without their second of latency.
 * Spark sends the request to the driver, then sleeps a whole second between checks of the reply,
 * and takes an interrupted sleep as its cue to check again (and to see whether the task was
 * killed). While a call waits, a daemon thread interrupts the caller's sleep every few
 * milliseconds; once the call returns the flag is cleared and the task's kill state checked, as
 * Spark marks a kill in the task context, not only in the flag.
 */
final class BarrierSync {
  /** How often a waiting caller is woken to look at the reply. */
  private static final long WAKE_MILLIS = 1;
  private static final ScheduledExecutorService WAKER =
      Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "stoker-barrier-waker");
        thread.setDaemon(true);
        return thread;
      });

  private BarrierSync() {}

  /** {@link BarrierTaskContext#allGather}: every rank's message, index = rank. */
  static String[] allGather(BarrierTaskContext task, String message) {
    return call(task, () -> task.allGather(message));
  }

  /** {@link BarrierTaskContext#barrier}. */
  static void barrier(BarrierTaskContext task) {
    call(task, () -> {
      task.barrier();
      return null;
    });
  }

  private static <T> T call(BarrierTaskContext task, Supplier<T> sync) {
    Thread caller = Thread.currentThread();
    if (caller.isInterrupted()) { // being killed: Spark's own call sees it at once
      return sync.get();
    }
    Waking waking = new Waking(caller);
    ScheduledFuture<?> ticks =
        WAKER.scheduleWithFixedDelay(waking, WAKE_MILLIS, WAKE_MILLIS, TimeUnit.MILLISECONDS);
    try {
      return sync.get();
    } finally {
      waking.stop();
      ticks.cancel(false);
      Thread.interrupted(); // a wake-up that came after Spark's last sleep
      task.killTaskIfInterrupted();
    }
  }

  /** Interrupts the caller while it sleeps in the call, never after {@link #stop}. */
  private static final class Waking implements Runnable {
    private final Thread caller;
    private boolean stopped;

    Waking(Thread caller) {
      this.caller = caller;
    }

    @Override
    public synchronized void run() {
      if (!stopped && caller.getState() == Thread.State.TIMED_WAITING) {
        caller.interrupt();
      }
    }

    synchronized void stop() {
      stopped = true;
    }
  }
}
