package dev.stoker.spark.run;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.util.TaskCompletionListener;

/**
 * A rank's exchanges through Spark's barrier channel, one instance per task ({@link #of}), each
 * named, numbered and optionally bounded in time.
 *
 * <p>Every exchange is an {@code allGather} whose message carries the exchange's number and the
 * name of the call that made it, so that ranks that make different calls (one in {@code barrier()},
 * another in its first all-reduce or at the end of its function) fail at once, every one of them
 * with a message naming each rank's call, instead of Spark's "Different barrier sync types found".
 * A bounded exchange runs Spark's call on a helper thread and stops waiting at its bound (Spark's
 * own wait defaults to a year); the channel is then out of step, so every later exchange of the
 * task fails at once, and once the task ends the helper is told to stop.
 *
 * <p>Spark's call sends the request to the driver, then sleeps a whole second between checks of the
 * reply, and takes an interrupted sleep as its cue to check again (and to see whether the task was
 * killed). While a call waits, a daemon thread interrupts that sleep every few milliseconds; once
 * the call returns the flag is cleared and the task's kill state checked, as Spark marks a kill in
 * the task context, not only in the flag.
 */
public final class BarrierSync {
  /** How often a waiting call is woken to look at the reply. */
  private static final long WAKE_MILLIS = 1;

  private static final long SLICE_MILLIS = 100;
  private static final ScheduledExecutorService WAKER =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "stoker-barrier-waker");
            thread.setDaemon(true);
            return thread;
          });
  private static final Map<BarrierTaskContext, BarrierSync> BY_TASK = new IdentityHashMap<>();

  private final BarrierTaskContext task;
  private final int rank;
  private int exchanges;
  private String outOfStep;
  private boolean helperStuck;

  private BarrierSync(BarrierTaskContext task) {
    this.task = task;
    this.rank = task.partitionId();
  }

  /** The task's exchanges: made on first use, forgotten when the task ends. */
  public static BarrierSync of(BarrierTaskContext task) {
    synchronized (BY_TASK) {
      BarrierSync sync = BY_TASK.get(task);
      if (sync == null) {
        BarrierSync made = new BarrierSync(task);
        task.addTaskCompletionListener((TaskCompletionListener) context -> made.taskEnded());
        BY_TASK.put(task, made);
        sync = made;
      }
      return sync;
    }
  }

  /**
   * {@link BarrierTaskContext#allGather}: every rank's message, index = rank.
   *
   * @param call what the rank is doing, e.g. "allGather(String)": every rank must name the same
   * @param bound the longest wait; zero waits as long as Spark does
   * @param boundOption the option that sets the bound, named when it runs out
   */
  public synchronized String[] allGather(
      String call, String message, Duration bound, String boundOption) {
    int number = ++exchanges;
    String what = "rank " + rank + ": " + call + " (barrier exchange #" + number + ")";
    if (outOfStep != null) {
      throw new IllegalStateException(what + ": the ranks are out of step since " + outOfStep);
    }
    String payload = number + "\t" + call + "\n" + message;
    String[] all =
        bound.isZero()
            ? wakeful(Thread.currentThread(), () -> task.allGather(payload))
            : bounded(payload, what, bound, boundOption);
    return check(all, number, call, what);
  }

  /** {@link BarrierTaskContext#barrier}, as an exchange of nothing. */
  void barrier(String call, Duration bound, String boundOption) {
    allGather(call, "", bound, boundOption);
  }

  /** The messages of {@code all}, if every rank made the same call; else an error naming each. */
  private String[] check(String[] all, int number, String call, String what) {
    String[] messages = new String[all.length];
    String[] calls = new String[all.length];
    boolean same = true;
    String expected = number + "\t" + call;
    for (int r = 0; r < all.length; r++) {
      int end = all[r].indexOf('\n');
      calls[r] = end < 0 ? "a call not made through Stoker" : all[r].substring(0, end);
      messages[r] = end < 0 ? all[r] : all[r].substring(end + 1);
      same &= calls[r].equals(expected);
    }
    if (same) {
      return messages;
    }
    StringBuilder error = new StringBuilder(what).append(": the ranks made different calls:");
    for (int r = 0; r < all.length; r++) {
      String[] parts = calls[r].split("\t", 2);
      error
          .append(r == 0 ? " " : ", ")
          .append("rank ")
          .append(r)
          .append(": ")
          .append(parts[parts.length - 1]);
      if (parts.length == 2 && !parts[0].equals(Integer.toString(number))) {
        error.append(" (barrier exchange #").append(parts[0]).append(")");
      }
    }
    error.append(
        " (expected: every rank to make the same allGather, barrier and all-reduce "
            + "calls in the same order, and to end its function only when the others do)");
    outOfStep = call + " (barrier exchange #" + number + ")";
    throw new IllegalStateException(error.toString());
  }

  /** Spark's call on a helper thread, waited for at most {@code bound}. */
  private String[] bounded(String payload, String what, Duration bound, String boundOption) {
    CountDownLatch done = new CountDownLatch(1);
    Object[] outcome = new Object[1];
    Waking[] waking = new Waking[1];
    Thread helper =
        new Thread(
            () -> {
              try {
                outcome[0] = wakeful(waking, () -> task.allGather(payload));
              } catch (Throwable t) {
                outcome[0] = t;
              } finally {
                done.countDown();
              }
            },
            "stoker-rank" + rank + "-barrier");
    helper.setDaemon(true);
    waking[0] = new Waking(helper);
    helper.start();
    long deadline = System.nanoTime() + Math.min(1L << 61, nanos(bound));
    boolean finished = false;
    try {
      while (!done.await(
          Math.max(1, Math.min(SLICE_MILLIS, (deadline - System.nanoTime()) / 1_000_000)),
          TimeUnit.MILLISECONDS)) {
        task.killTaskIfInterrupted(); // Spark kills a task by marking it: the helper sees it too
        if (System.nanoTime() - deadline >= 0) {
          throw new IllegalStateException(
              what
                  + ": not every rank reached it within "
                  + describe(bound)
                  + " (Spark's barrier channel does not say which; expected: "
                  + "every rank to make the same allGather, barrier and all-reduce calls in the same "
                  + "order; if a rank is just slow, raise "
                  + boundOption
                  + ")");
        }
      }
      finished = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      task.killTaskIfInterrupted();
      throw new IllegalStateException(what + ": interrupted", e);
    } finally {
      if (!finished) { // the helper is still in Spark's call: nothing more goes through it
        waking[0].stop();
        helperStuck = true;
        outOfStep = what.substring(what.indexOf(": ") + 2) + " did not complete";
      }
    }
    if (outcome[0] instanceof Throwable) {
      throw BarrierSync.<RuntimeException>sneaky((Throwable) outcome[0]);
    }
    return (String[]) outcome[0];
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable t) throws E {
    throw (E) t; // Spark's SparkException, unchanged, as a direct call would throw it
  }

  private static long nanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static String describe(Duration duration) {
    long millis = duration.toMillis();
    return millis % 1000 != 0 ? millis + " ms" : millis / 1000 + " s";
  }

  /** When the task ends: a helper left in Spark's call stops at its next look at the task. */
  private void taskEnded() {
    synchronized (BY_TASK) {
      BY_TASK.remove(task);
    }
    boolean stuck;
    synchronized (this) {
      stuck = helperStuck;
    }
    if (stuck && !task.isInterrupted()) {
      task.markInterrupted("a Stoker barrier exchange timed out and the task ended");
    }
  }

  private String[] wakeful(Thread caller, Supplier<String[]> sync) {
    return wakeful(new Waking[] {new Waking(caller)}, sync);
  }

  private String[] wakeful(Waking[] waking, Supplier<String[]> sync) {
    Thread caller = Thread.currentThread();
    if (caller.isInterrupted()) { // being killed: Spark's own call sees it at once
      return sync.get();
    }
    ScheduledFuture<?> ticks =
        WAKER.scheduleWithFixedDelay(waking[0], WAKE_MILLIS, WAKE_MILLIS, TimeUnit.MILLISECONDS);
    try {
      return sync.get();
    } finally {
      waking[0].stop();
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
