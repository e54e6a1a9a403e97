package dev.stoker.loader.util;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the daemon threads of a pool and joins them when the pool closes. A pool that reports
 * itself terminated has only seen its workers leave their loop: their threads may still be alive,
 * so whoever promises that no thread outlives its owner must join them.
 */
public final class JoinedThreads implements ThreadFactory {
  private final String prefix;
  private final AtomicInteger count = new AtomicInteger();
  private final List<Thread> made = new ArrayList<>();

  /** Threads named {@code prefix} followed by their number, from 1. */
  public JoinedThreads(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread thread = new Thread(task, prefix + count.incrementAndGet());
    thread.setDaemon(true);
    synchronized (made) {
      made.add(thread);
    }
    return thread;
  }

  /**
   * Waits until every thread made so far has ended or {@code timeout} has passed, whichever comes
   * first; true when all have ended.
   */
  public boolean join(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    List<Thread> threads;
    synchronized (made) {
      threads = new ArrayList<>(made);
    }
    for (Thread thread : threads) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        break;
      }
      thread.join(left);
    }
    for (Thread thread : threads) {
      if (thread.isAlive()) {
        return false;
      }
    }
    return true;
  }
}
