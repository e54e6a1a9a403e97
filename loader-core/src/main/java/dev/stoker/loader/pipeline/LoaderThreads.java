package dev.stoker.loader.pipeline;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every thread a loader runs, from start until it ends, and the one way its threads are stopped:
 * wait for them until a grace period passes, then interrupt those still running and wait once more.
 * A thread stuck in user code past that is reported, never waited for without end.
 */
public final class LoaderThreads {
  private static final Logger LOG = LoggerFactory.getLogger(LoaderThreads.class);

  private final Set<Thread> running = ConcurrentHashMap.newKeySet();

  /** Starts a daemon thread named {@code name} running {@code body}, tracked until it ends. */
  public Thread start(String name, Runnable body) {
    Thread thread =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Throwable t) {
                LOG.error(
                    "loader thread {} ended by {}",
                    Thread.currentThread().getName(),
                    t.toString(),
                    t);
              } finally {
                running.remove(Thread.currentThread());
              }
            },
            name);
    thread.setDaemon(true);
    running.add(thread);
    try {
      thread.start();
    } catch (Throwable t) {
      running.remove(thread);
      throw t;
    }
    return thread;
  }

  /** Threads started and not yet ended. */
  public List<Thread> running() {
    List<Thread> alive = new ArrayList<>();
    for (Thread thread : running) {
      if (thread.isAlive()) {
        alive.add(thread);
      }
    }
    return alive;
  }

  /**
   * Waits up to {@code graceNanos} for {@code threads} to end, then interrupts those still running
   * and waits up to {@code graceNanos} more. Keeps the caller's interrupt flag.
   *
   * @return the threads still running after that, described (empty when all ended)
   */
  public static List<String> stop(Collection<Thread> threads, long graceNanos) {
    boolean interrupted = awaitAll(threads, graceNanos);
    List<Thread> late = new ArrayList<>();
    for (Thread thread : threads) {
      if (thread.isAlive() && thread != Thread.currentThread()) {
        late.add(thread);
        thread.interrupt();
      }
    }
    interrupted |= awaitAll(late, graceNanos);
    List<String> stuck = new ArrayList<>();
    for (Thread thread : late) {
      if (thread.isAlive()) {
        stuck.add(describe(thread));
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return stuck;
  }

  /** True if the caller was interrupted while waiting. */
  private static boolean awaitAll(Collection<Thread> threads, long nanos) {
    long deadline = System.nanoTime() + nanos;
    boolean interrupted = false;
    for (Thread thread : threads) {
      if (thread == Thread.currentThread()) {
        continue;
      }
      while (thread.isAlive()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedJoin(thread, left);
        } catch (InterruptedException e) {
          interrupted = true;
          break;
        }
      }
    }
    return interrupted;
  }

  /** The thread's name, state and the top of its stack, for reports of stuck threads. */
  public static String describe(Thread thread) {
    StringBuilder text =
        new StringBuilder(thread.getName()).append(" (").append(thread.getState()).append(")");
    StackTraceElement[] stack = thread.getStackTrace();
    for (int i = 0; i < Math.min(4, stack.length); i++) {
      text.append(i == 0 ? " at " : " < ").append(stack[i]);
    }
    return text.toString();
  }
}
