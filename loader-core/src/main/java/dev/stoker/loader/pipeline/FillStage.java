package dev.stoker.loader.pipeline;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SlotPool;
import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.WorkerCounters;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One epoch's fill: worker {@code w} fills batches {@code w, w + W, w + 2W, ...} into slots from
 * the pool and hands them over through its own queue, so the consumer takes batch {@code k} from
 * queue {@code k mod W} and gets batches in order whatever order the workers finish in. At most
 * {@code numWorkers x prefetchFactor} batches are in flight. With no workers, {@link #next} fills
 * the batch in the caller's thread.
 */
public final class FillStage implements BatchSource {
  private static final long STOP_GRACE_MILLIS = 2_000;

  private final String name;
  private final int epoch;
  private final int batchCount;
  private final SlotFiller filler;
  private final SlotPool pool;
  private final int numWorkers;
  private final long timeoutNanos;
  private final EpochCounters counters;
  private final WorkerGroup workers;
  private final WorkerStatus[] statuses;
  private final BatchQueue[] queues;
  private final FillWindow window;
  private final CountDownLatch stopped;
  private final AtomicInteger ready = new AtomicInteger();
  private final BooleanSupplier cancelledCheck = this::isCancelled;
  private volatile boolean cancelled;
  private int nextBatch;
  private boolean closed;

  /**
   * Starts the epoch on {@code workers} (null: fill in the caller's thread).
   *
   * @param timeoutNanos longest wait for one batch; 0 waits forever
   */
  public FillStage(String name, int epoch, int batchCount, SlotFiller filler, SlotPool pool,
      WorkerGroup workers, int prefetchFactor, long timeoutNanos, EpochCounters counters) {
    this.name = name;
    this.epoch = epoch;
    this.batchCount = batchCount;
    this.filler = filler;
    this.pool = pool;
    this.workers = workers;
    this.numWorkers = workers == null ? 0 : workers.size();
    this.timeoutNanos = timeoutNanos;
    this.counters = counters;
    this.window = new FillWindow(Math.max(1, numWorkers * prefetchFactor));
    this.queues = new BatchQueue[numWorkers];
    this.statuses = new WorkerStatus[Math.max(1, numWorkers)];
    for (int i = 0; i < numWorkers; i++) {
      queues[i] = new BatchQueue(prefetchFactor);
      statuses[i] = new WorkerStatus(workers.threadName(i));
    }
    if (workers == null) {
      statuses[0] = new WorkerStatus("the consumer's thread (numWorkers=0)");
    }
    this.stopped = new CountDownLatch(numWorkers);
    if (workers != null) {
      workers.start(this);
    }
  }

  private boolean isCancelled() {
    return cancelled;
  }

  /** Worker {@code index}'s loop over its share of the epoch; run by {@link WorkerGroup}. */
  void work(int index) {
    WorkerStatus status = statuses[index];
    WorkerCounters time = counters.worker(index);
    try {
      for (int batch = index; batch < batchCount && !cancelled; batch += numWorkers) {
        if (!fillAndHandOver(batch, status, time, queues[index])) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      status.idle();
      stopped.countDown();
    }
  }

  /** False when the worker should stop: cancelled, or its batch failed. */
  private boolean fillAndHandOver(int batch, WorkerStatus status, WorkerCounters time,
      BatchQueue queue) throws InterruptedException {
    status.enter(WorkerStatus.State.WAITING_FOR_WINDOW, batch);
    long start = System.nanoTime();
    if (!window.awaitTurn(batch, cancelledCheck)) {
      return false;
    }
    time.addWindowWait(System.nanoTime() - start);
    HostMemory slot;
    status.enter(WorkerStatus.State.WAITING_FOR_SLOT, batch);
    try {
      slot = pool.acquire(cancelledCheck);
    } finally {
      window.pass();
    }
    if (slot == null) {
      return false;
    }
    long filling = System.nanoTime();
    Object result = fillOrFailure(slot, batch, status);
    time.addFill(System.nanoTime() - filling);
    status.enter(WorkerStatus.State.HANDING_OVER, batch);
    ready.incrementAndGet();
    if (!queue.put(result, cancelledCheck)) {
      ready.decrementAndGet();
      if (result instanceof HostMemory) {
        pool.release(slot);
      }
      return false;
    }
    return result instanceof HostMemory;
  }

  /** The filled slot, or the failure (the slot then back in the pool). */
  private Object fillOrFailure(HostMemory slot, int batch, WorkerStatus status)
      throws InterruptedException {
    try {
      filler.fill(slot, batch, status);
      return slot;
    } catch (InterruptedException e) {
      pool.release(slot);
      throw e;
    } catch (BatchLoadException e) {
      pool.release(slot);
      return e;
    } catch (RuntimeException | Error e) {
      pool.release(slot);
      return new BatchLoadException(String.format("epoch %d batch %d: %s", epoch, batch, e),
          epoch, batch, -1, e);
    }
  }

  @Override
  public HostMemory next(int batch) throws InterruptedException {
    if (batch != nextBatch || batch >= batchCount) {
      throw new IllegalStateException("batch: " + batch + " (expected: " + nextBatch + " of "
          + batchCount + ")");
    }
    if (cancelled) {
      throw new CancellationException("epoch " + epoch + " of loader '" + name + "' was closed");
    }
    nextBatch++;
    return numWorkers == 0 ? fillInline(batch) : takeFromWorker(batch);
  }

  private HostMemory fillInline(int batch) throws InterruptedException {
    WorkerStatus status = statuses[0];
    HostMemory slot = pool.acquire(cancelledCheck);
    if (slot == null) {
      throw new CancellationException("epoch " + epoch + " of loader '" + name + "' was closed");
    }
    long filling = System.nanoTime();
    Object result = fillOrFailure(slot, batch, status);
    counters.worker(0).addFill(System.nanoTime() - filling);
    status.idle();
    return unwrap(result);
  }

  private HostMemory takeFromWorker(int batch) throws InterruptedException {
    long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : Long.MAX_VALUE;
    Object result = queues[batch % numWorkers].take(deadline, cancelledCheck);
    if (result == null) {
      if (cancelled) {
        throw new CancellationException("epoch " + epoch + " of loader '" + name + "' was closed");
      }
      throw timeout(batch);
    }
    ready.decrementAndGet();
    window.delivered();
    return unwrap(result);
  }

  private static HostMemory unwrap(Object result) {
    if (result instanceof BatchLoadException failure) {
      throw failure;
    }
    return (HostMemory) result;
  }

  private LoaderTimeoutException timeout(int batch) {
    StringBuilder text = new StringBuilder(String.format(
        "loader '%s' epoch %d: batch %d of %d did not come within timeout=%d ms; workers:",
        name, epoch, batch, batchCount, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
    for (WorkerStatus status : statuses) {
      text.append(System.lineSeparator()).append("  ").append(status.describe());
    }
    text.append(System.lineSeparator()).append("  ").append(pool);
    return new LoaderTimeoutException(text.toString());
  }

  @Override
  public int ready() {
    return ready.get();
  }

  @Override
  public void release(HostMemory slot) {
    pool.release(slot);
  }

  /** What every worker is doing now, one line each. */
  public String describeWorkers() {
    StringBuilder text = new StringBuilder();
    for (WorkerStatus status : statuses) {
      text.append(status.describe()).append(System.lineSeparator());
    }
    return text.toString();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    cancelled = true;
    window.wake();
    pool.wakeWaiters();
    for (BatchQueue queue : queues) {
      queue.wake();
    }
    awaitWorkersStopped();
    for (BatchQueue queue : queues) {
      queue.drain(item -> {
        if (item instanceof HostMemory slot) {
          pool.release(slot);
        }
      });
    }
    ready.set(0);
  }

  private void awaitWorkersStopped() {
    if (workers == null) {
      return;
    }
    try {
      if (!stopped.await(STOP_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
        workers.interruptAll();
        if (!stopped.await(STOP_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("loader '" + name + "' epoch " + epoch
              + ": workers did not stop within " + 2 * STOP_GRACE_MILLIS + " ms:"
              + System.lineSeparator() + describeWorkers());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
