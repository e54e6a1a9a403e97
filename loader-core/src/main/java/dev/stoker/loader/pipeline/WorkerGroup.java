package dev.stoker.loader.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The worker threads of a loader, named {@code <name>-worker-<i>}. Each runs one epoch's
 * {@link FillStage} at a time; between epochs they wait, so the same group serves every epoch
 * when workers are persistent. {@link #close()} stops and joins them.
 */
public final class WorkerGroup implements AutoCloseable {
  private static final long JOIN_GRACE_MILLIS = 2_000;

  private final String name;
  private final Thread[] threads;
  private FillStage current;
  private long generation;
  private boolean shutdown;

  public WorkerGroup(String name, int size) {
    if (size <= 0) {
      throw new IllegalArgumentException("size: " + size + " (expected: > 0)");
    }
    this.name = name;
    this.threads = new Thread[size];
    for (int i = 0; i < size; i++) {
      int index = i;
      threads[i] = new Thread(() -> loop(index), name + "-worker-" + i);
      threads[i].setDaemon(true);
      threads[i].start();
    }
  }

  public int size() {
    return threads.length;
  }

  public String threadName(int index) {
    return threads[index].getName();
  }

  /** Starts every worker on {@code stage}; the previous stage must have stopped. */
  public synchronized void start(FillStage stage) {
    if (shutdown) {
      throw new IllegalStateException("worker group '" + name + "' is closed");
    }
    current = stage;
    generation++;
    notifyAll();
  }

  private void loop(int index) {
    long seen = 0;
    while (true) {
      FillStage stage;
      synchronized (this) {
        while (!shutdown && generation == seen) {
          try {
            wait();
          } catch (InterruptedException e) {
            // an interrupt meant for a stage that has ended; keep serving until shut down
          }
        }
        if (shutdown) {
          return;
        }
        seen = generation;
        stage = current;
      }
      Thread.interrupted(); // a stale interrupt from cancelling the previous stage
      stage.work(index);
    }
  }

  /** Interrupts every worker, to free one stuck in dataset code after a cancel. */
  void interruptAll() {
    for (Thread thread : threads) {
      thread.interrupt();
    }
  }

  /** Threads still alive (a worker stuck in dataset code that ignores interrupts). */
  public List<String> alive() {
    List<String> names = new ArrayList<>();
    for (Thread thread : threads) {
      if (thread.isAlive()) {
        names.add(thread.getName());
      }
    }
    return names;
  }

  /**
   * Stops the threads: asks, then interrupts after a grace period, then gives up on any that
   * still run (they are daemons) and says so. Safe to call twice.
   */
  @Override
  public void close() {
    synchronized (this) {
      shutdown = true;
      notifyAll();
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_GRACE_MILLIS);
    boolean interrupted = false;
    for (Thread thread : threads) {
      try {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        thread.join(Math.max(1, left));
        if (thread.isAlive()) {
          thread.interrupt();
          thread.join(JOIN_GRACE_MILLIS);
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    List<String> stuck = alive();
    if (!stuck.isEmpty()) {
      throw new IllegalStateException("worker group '" + name + "': threads " + stuck
          + " did not stop within " + 2 * JOIN_GRACE_MILLIS + " ms (stuck in dataset code?)");
    }
  }
}
