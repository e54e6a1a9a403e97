package dev.stoker.tools.bench;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * The threads of {@link MemcpyBaseline}'s all-cores gather, one per core, named {@code
 * stoker-memcpy-<i>}. They run a fixed number of rounds, each started by the caller ({@link
 * #runRound}): all threads leave one barrier together, each copies every sample of the shared
 * source in its own random order into its own batch buffer, and the round lasts until the last one
 * is done. Closing stops and joins them.
 */
final class GatherCrew implements AutoCloseable {
  private final DirectSamples source;
  private final int batchSize;
  private final Thread[] threads;
  private final CyclicBarrier go;
  private final CyclicBarrier done;

  /** Per thread and round: when it started and ended copying. */
  private final long[][] starts;

  private final long[][] ends;
  private volatile Throwable failure;

  GatherCrew(DirectSamples source, int batchSize, int count, int rounds, SplittableRandom seeds) {
    this.source = source;
    this.batchSize = batchSize;
    this.threads = new Thread[count];
    this.go = new CyclicBarrier(count + 1);
    this.done = new CyclicBarrier(count + 1);
    this.starts = new long[count][rounds];
    this.ends = new long[count][rounds];
    for (int t = 0; t < count; t++) {
      int index = t;
      SplittableRandom random = seeds.split();
      threads[t] = new Thread(() -> run(index, rounds, random), "stoker-memcpy-" + t);
      threads[t].setDaemon(true);
      threads[t].start();
    }
  }

  /** Runs round {@code round} on every thread: nanoseconds from the first start to the last end. */
  long runRound(int round) {
    await(go);
    await(done);
    Throwable failed = failure;
    if (failed != null) {
      throw new IllegalStateException("a thread of the all-cores memcpy failed: " + failed, failed);
    }
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (int t = 0; t < threads.length; t++) {
      first = Math.min(first, starts[t][round]);
      last = Math.max(last, ends[t][round]);
    }
    return Math.max(1, last - first);
  }

  private void run(int index, int rounds, SplittableRandom random) {
    HostMemory batch = null;
    try {
      for (int r = 0; r < rounds; r++) {
        int[] order = null;
        try {
          batch =
              batch != null
                  ? batch
                  : DirectAllocator.INSTANCE.allocate(batchSize * source.sampleBytes());
          order = MemcpyBaseline.permutation(source.count(), random);
        } catch (Throwable t) {
          fail(t);
        }
        go.await();
        starts[index][r] = System.nanoTime();
        try {
          if (order != null) {
            MemcpyBaseline.gather(source, batch.bytes(), order, batchSize);
          }
        } catch (Throwable t) {
          fail(t);
        }
        ends[index][r] = System.nanoTime();
        done.await();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closed early: end
    } catch (BrokenBarrierException e) {
      // another party was interrupted: closed early
    } finally {
      if (batch != null) {
        batch.close();
      }
    }
  }

  /** Keeps the first failure; the thread goes on meeting the barriers so that no one waits. */
  private synchronized void fail(Throwable t) {
    if (failure == null) {
      failure = t;
    }
  }

  private void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while measuring the all-cores memcpy", e);
    } catch (BrokenBarrierException e) {
      throw new IllegalStateException("the all-cores memcpy was stopped", e);
    }
  }

  /** Stops the threads (at once if rounds are left) and waits for them. */
  @Override
  public void close() {
    boolean interrupted = false;
    for (Thread thread : threads) {
      thread.interrupt();
    }
    for (Thread thread : threads) {
      while (thread.isAlive()) {
        try {
          thread.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
