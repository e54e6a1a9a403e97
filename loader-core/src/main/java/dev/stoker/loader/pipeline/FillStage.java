package dev.stoker.loader.pipeline;

import dev.stoker.loader.BatchLoadException;
import dev.stoker.loader.Stage;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SlotPool;
import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.WorkerCounters;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One epoch's fill: worker {@code w} fills batches {@code w, w + W, w + 2W, ...} into slots from
 * the pool and hands each over through its own queue, so that batch {@code k} is taken from queue
 * {@code k mod W} and batches come in order whatever order the workers finish in. At most the
 * prefetch window of batches is in flight. Without workers, the consumer fills each batch in its
 * own thread ({@link #fillInline}).
 *
 * <p>Whatever a worker meets (a bad sample, a failed allocation, an {@link Error}) is handed over
 * in place of its batch, so the consumer gets it at that batch; a worker never ends silently. Queue
 * items are a {@link StagedBatch}, a {@link BatchLoadException}, or {@link #END}.
 */
final class FillStage {
  /** Handed over in place of a batch the epoch does not have (its stream ended before). */
  static final Object END =
      new Object() {
        @Override
        public String toString() {
          return "end of epoch";
        }
      };

  private static final Logger LOG = LoggerFactory.getLogger(FillStage.class);
  private static final int PENDING = 0;
  private static final int RUNNING = 1;
  private static final int DONE = 2;

  private final String name;
  private final int epoch;
  private final int batchCount;
  private final BatchWriter writer;
  private final SlotPool pool;
  private final Carriers carriers;
  private final EpochCounters counters;
  private final int numWorkers;
  private final BatchQueue[] queues;
  private final WorkerStatus[] statuses;
  private final SlotDispenser dispenser;

  /** Per worker: {@link #PENDING}, {@link #RUNNING} or {@link #DONE}. */
  private final AtomicIntegerArray workerState;

  /** Threads that may still use the writer: workers not done, and an inline fill under way. */
  private final AtomicInteger active;

  private final CountDownLatch stopped;
  private final AtomicInteger ready = new AtomicInteger();
  private final AtomicBoolean writerClosed = new AtomicBoolean();
  private final BooleanSupplier cancelledCheck = this::isCancelled;
  private volatile boolean cancelled;
  private volatile boolean retired;

  /**
   * @param batchCount batches in the epoch, or -1 when its stream tells at the end
   * @param workerNames the worker threads' names, one per worker (none: fill inline)
   * @param window batches that may be taken but not yet handed on
   * @param queueCapacity batches one worker may have waiting
   */
  FillStage(
      String name,
      int epoch,
      int batchCount,
      BatchWriter writer,
      SlotPool pool,
      Carriers carriers,
      EpochCounters counters,
      String[] workerNames,
      int window,
      int queueCapacity) {
    this.name = name;
    this.epoch = epoch;
    this.batchCount = batchCount;
    this.writer = writer;
    this.pool = pool;
    this.carriers = carriers;
    this.counters = counters;
    this.numWorkers = workerNames.length;
    int lanes = Math.max(1, numWorkers);
    this.queues = new BatchQueue[lanes];
    this.statuses = new WorkerStatus[lanes];
    for (int i = 0; i < lanes; i++) {
      queues[i] = new BatchQueue(numWorkers == 0 ? 1 : queueCapacity);
      statuses[i] =
          new WorkerStatus(
              numWorkers == 0 ? "the consumer's thread (numWorkers=0)" : workerNames[i]);
    }
    this.dispenser = new SlotDispenser(pool, window);
    this.workerState = new AtomicIntegerArray(lanes);
    this.active = new AtomicInteger(numWorkers);
    this.stopped = new CountDownLatch(numWorkers);
  }

  private boolean isCancelled() {
    return cancelled;
  }

  int numWorkers() {
    return numWorkers;
  }

  /** Batches in the epoch, or -1 when the stream tells at its end. */
  int batchCount() {
    return batchCount;
  }

  /** Whether worker {@code index} is done with this stage (or never ran it). */
  boolean workerDone(int index) {
    return numWorkers == 0 || workerState.get(index) == DONE;
  }

  /** The workers will never run this stage (their crew could not be started). */
  void abandon() {
    for (int i = 0; i < numWorkers; i++) {
      if (workerState.compareAndSet(i, PENDING, DONE)) {
        finished();
      }
    }
  }

  /**
   * A worker is done with the stage. The writer is released before the worker counts as stopped, so
   * that once the epoch's close has seen every worker stop, nothing of the epoch is still open.
   */
  private void finished() {
    leave();
    stopped.countDown();
  }

  /** One thread stopped writing; the last one out closes the writer once the stage retired. */
  private void leave() {
    if (active.decrementAndGet() == 0 && retired) {
      closeWriter();
    }
  }

  /** Worker {@code index}'s share of the epoch; run by its {@link WorkerCrew} member. */
  void work(int index) {
    if (!workerState.compareAndSet(index, PENDING, RUNNING)) {
      return; // abandoned
    }
    WorkerStatus status = statuses[index];
    WorkerCounters time = counters.worker(index);
    int batch = index;
    try {
      for (; !cancelled && (batchCount < 0 || batch < batchCount); batch += numWorkers) {
        status.enter(WorkerStatus.State.WAITING_FOR_WINDOW, batch);
        long start = System.nanoTime();
        Object slot = dispenser.acquire(batch, cancelledCheck, status);
        time.addWindowWait(System.nanoTime() - start);
        Object item = slot == null ? null : fill(slot, batch, status, time);
        if (item == null || !handOver(queues[index], item) || !(item instanceof StagedBatch)) {
          break;
        }
      }
    } catch (Throwable t) {
      if (!cancelled) {
        handOverQuietly(queues[index], failure(Stage.FILL, batch, writer.explain(t)));
      }
    } finally {
      status.idle();
      workerState.set(index, DONE);
      finished();
    }
  }

  /**
   * Fills batch {@code batch} into {@code slot} (or hands on the failure that allocating it threw):
   * the filled {@link StagedBatch}, {@link #END}, a failure, or null if the stage was cancelled
   * meanwhile.
   */
  private Object fill(Object slot, int batch, WorkerStatus status, WorkerCounters time) {
    if (!(slot instanceof HostMemory memory)) {
      return failure(Stage.ALLOCATE, batch, (Throwable) slot);
    }
    StagedBatch staged = carriers.of(memory);
    staged.begin(epoch, batch);
    long start = System.nanoTime();
    Object item;
    try {
      item = writer.write(staged, batch, status) ? staged : END;
    } catch (InterruptedException e) {
      item = cancelled ? null : failure(Stage.FILL, batch, e);
    } catch (Throwable t) {
      item = failure(Stage.FILL, batch, writer.explain(t));
    }
    if (item != staged) {
      pool.release(memory);
    }
    time.addFill(System.nanoTime() - start);
    return item;
  }

  /** Takes a slot from the pool for batch {@code batch}, in the caller's thread. */
  private Object acquireInline(int batch, WorkerStatus status) throws InterruptedException {
    status.enter(WorkerStatus.State.WAITING_FOR_SLOT, batch);
    try {
      return pool.acquire(cancelledCheck);
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) {
      return t;
    }
  }

  private BatchLoadException failure(Stage stage, int batch, Throwable t) {
    return t instanceof BatchLoadException known
        ? known
        : BatchLoadException.of(name, stage, epoch, batch, t);
  }

  /** False if cancelled first; a batch not handed over goes back to the pool. */
  private boolean handOver(BatchQueue queue, Object item) throws InterruptedException {
    ready.incrementAndGet();
    boolean put = false;
    try {
      put = queue.put(item, cancelledCheck);
    } finally {
      if (!put) {
        ready.decrementAndGet();
        if (item instanceof StagedBatch staged) {
          pool.release(staged.host());
        }
      }
    }
    return put;
  }

  private void handOverQuietly(BatchQueue queue, Object item) {
    try {
      handOver(queue, item);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Fills batch {@code batch} in the caller's thread, for {@link #take}; numWorkers = 0 only. */
  void fillInline(int batch) throws InterruptedException {
    WorkerStatus status = statuses[0];
    active.incrementAndGet();
    if (retired) {
      leave(); // closed meanwhile: take() reports it
      return;
    }
    try {
      Object slot = acquireInline(batch, status);
      Object item = slot == null ? null : fill(slot, batch, status, counters.worker(0));
      if (item != null) {
        handOver(queues[0], item);
      }
    } finally {
      status.idle();
      leave();
    }
  }

  /**
   * The next item for batch {@code batch}, waiting at most {@code timeoutNanos} (0: without a
   * limit); null if cancelled or past the limit. Batches must be taken in order.
   */
  Object take(int batch, long timeoutNanos) throws InterruptedException {
    Object item =
        queues[numWorkers == 0 ? 0 : batch % numWorkers].take(timeoutNanos, cancelledCheck);
    if (item != null) {
      ready.decrementAndGet();
      dispenser.delivered();
    }
    return item;
  }

  /** Like {@link #take}, without waiting: null if batch {@code batch} is not ready yet. */
  Object poll(int batch) {
    Object item = queues[numWorkers == 0 ? 0 : batch % numWorkers].poll();
    if (item != null) {
      ready.decrementAndGet();
      dispenser.delivered();
    }
    return item;
  }

  /** Returns a batch's slot to the pool. */
  void release(StagedBatch staged) {
    pool.release(staged.host());
  }

  /** Batches filled and waiting right now. */
  int ready() {
    return Math.max(0, ready.get());
  }

  boolean isCancelledNow() {
    return cancelled;
  }

  /** Stops the workers at their next check and wakes every wait of theirs. */
  void cancel() {
    cancelled = true;
    try {
      writer.cancel();
    } catch (Throwable t) {
      LOG.warn("loader '{}' epoch {}: cancelling its source failed", name, epoch, t);
    }
    dispenser.wake();
    pool.wakeWaiters();
    for (BatchQueue queue : queues) {
      queue.wake();
    }
  }

  /** Waits up to {@code nanos} for every worker to be done; true if they are. */
  boolean awaitStopped(long nanos) {
    try {
      return stopped.await(nanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return stopped.getCount() == 0;
    }
  }

  /**
   * After {@link #cancel()}: returns the slots of batches never taken, and releases the writer now,
   * or when the last worker still in dataset code comes back.
   */
  void retire() {
    retired = true;
    dispenser.drain();
    for (BatchQueue queue : queues) {
      queue.drain(
          item -> {
            if (item instanceof StagedBatch staged) {
              pool.release(staged.host());
            }
          });
    }
    ready.set(0);
    if (active.get() == 0) {
      closeWriter();
    }
  }

  private void closeWriter() {
    if (writerClosed.compareAndSet(false, true)) {
      try {
        writer.close();
      } catch (Throwable t) {
        LOG.warn("loader '{}' epoch {}: closing its source failed", name, epoch, t);
      }
    }
  }

  /** What the thread filling batch {@code batch} is doing, and the others. */
  String describe(int batch) {
    int lane = numWorkers == 0 ? 0 : batch % numWorkers;
    StringBuilder text =
        new StringBuilder("it is ")
            .append(statuses[lane].threadName())
            .append("'s to fill: ")
            .append(statuses[lane].describe());
    for (int i = 0; i < statuses.length; i++) {
      if (i != lane) {
        text.append(System.lineSeparator()).append("  ").append(statuses[i].describe());
      }
    }
    return text.append(System.lineSeparator()).append("  ").append(pool).toString();
  }
}
