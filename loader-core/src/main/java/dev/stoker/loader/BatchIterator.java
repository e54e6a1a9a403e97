package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SlotPool;
import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.pipeline.BatchSource;
import dev.stoker.loader.pipeline.FillStage;
import dev.stoker.loader.pipeline.TransferStage;
import dev.stoker.loader.pipeline.WorkerGroup;
import dev.stoker.loader.sampler.EpochBatches;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;

/**
 * The consumer's side of one epoch. {@link #next()} returns the batches in sampler order and
 * first closes the batch it returned before, if the caller has not. {@link #close()} (or the end
 * of the epoch, or starting another one) stops the work in flight and returns every slot;
 * {@code hasNext()} has no side effects.
 *
 * <p>One thread iterates; {@link #close()} may come from another one (a task being killed): a
 * {@code next()} waiting then ends with a {@link CancellationException}, and the slot it may just
 * have got goes back before {@code close()} returns.
 */
public final class BatchIterator implements Iterator<Batch>, AutoCloseable {
  private final DataLoader loader;
  private final EpochBatches plan;
  private final SlotPool pool;
  private final WorkerGroup workers;
  private final boolean ownsWorkers;
  private final EpochCounters counters;
  private final BatchSource source;
  /** Time a concurrent close waits for a next() in progress to let go of its slot. */
  private static final long TAKE_GRACE_MILLIS = 10_000;

  private Batch held;
  private long handedOutAt;
  private int delivered;
  private boolean ended;
  private volatile boolean closed;
  /** True while next() waits for a slot; guarded by {@code this}. */
  private boolean taking;

  BatchIterator(DataLoader loader, EpochBatches plan, SlotPool pool, WorkerGroup workers,
      boolean ownsWorkers, int slotLimit) {
    LoaderOptions options = loader.options();
    this.loader = loader;
    this.plan = plan;
    this.pool = pool;
    this.workers = workers;
    this.ownsWorkers = ownsWorkers;
    this.counters = new EpochCounters(plan.epoch(), options.batchSize(), options.numWorkers(),
        options.prefetchWindow(), slotLimit, pool::waitNanos);
    this.source = plan.batchCount() == 0 ? null : openSource(options);
  }

  private BatchSource openSource(LoaderOptions options) {
    BatchFiller filler = new BatchFiller(loader.dataset(), loader.layout(), plan,
        options.onBadSample(), counters, loader.writers());
    long timeoutNanos = options.timeout().toNanos();
    FillStage fill = new FillStage(loader.name(), plan.epoch(), plan.batchCount(), filler, pool,
        workers, options.prefetchFactor(), timeoutNanos, counters);
    if (loader.device().isHost()) {
      return fill;
    }
    return new TransferStage(loader.name(), fill,
        loader.device().openTransfer(loader.name(), pool.slotBytes(), options.transferDepth()),
        options.transferDepth(), plan.batchCount(), pool.slotBytes(), timeoutNanos, counters);
  }

  public int epoch() {
    return plan.epoch();
  }

  /** Batches in this epoch. */
  public int batchCount() {
    return plan.batchCount();
  }

  @Override
  public boolean hasNext() {
    return !closed && delivered < plan.batchCount();
  }

  /**
   * The next batch, in sampler order.
   *
   * @throws dev.stoker.loader.pipeline.BatchLoadException if it failed to load; the epoch ends
   * @throws dev.stoker.loader.pipeline.LoaderTimeoutException if it did not come within the
   *     timeout; the epoch ends
   * @throws CancellationException if the epoch was closed meanwhile
   */
  @Override
  public Batch next() {
    if (closed) {
      throw closedMeanwhile();
    }
    if (!hasNext()) {
      throw new NoSuchElementException("epoch " + plan.epoch() + " has no batch after "
          + delivered);
    }
    long asked = System.nanoTime();
    if (delivered > 0) {
      counters.addConsumerHold(asked - handedOutAt);
    }
    Batch previous;
    synchronized (this) {
      if (closed) {
        throw closedMeanwhile();
      }
      previous = held;
      taking = true;
    }
    if (previous != null) {
      previous.close();
    }
    HostMemory slot = take();
    long now = System.nanoTime();
    counters.addConsumerWait(now - asked);
    Batch batch = (Batch) slot.attachment();
    synchronized (this) {
      doneTaking();
      if (closed) {
        source.release(slot);
        throw closedMeanwhile();
      }
      batch.open(this);
      held = batch;
    }
    handedOutAt = now;
    delivered++;
    counters.addDelivered(batch.size(), source.ready());
    if (delivered == plan.batchCount()) {
      endEpoch();
    }
    return batch;
  }

  private HostMemory take() {
    try {
      return source.next(delivered);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      synchronized (this) {
        doneTaking();
      }
      close();
      throw new CancellationException("interrupted while waiting for batch " + delivered
          + " of epoch " + plan.epoch());
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        doneTaking();
      }
      close();
      throw e;
    }
  }

  /** Called holding {@code this}. */
  private void doneTaking() {
    taking = false;
    notifyAll();
  }

  private CancellationException closedMeanwhile() {
    return new CancellationException("epoch " + plan.epoch() + " of loader '" + loader.name()
        + "' was closed while batch " + delivered + " was asked for");
  }

  /** Returns a batch's slot; called by {@link Batch#close()}. */
  synchronized void release(Batch batch) {
    if (held == batch) {
      held = null;
    }
    source.release(batch.memory());
  }

  /** True once every batch was handed out or the iterator was closed. */
  synchronized boolean hasEnded() {
    return ended;
  }

  /** The metrics of this epoch so far. */
  public EpochMetrics metrics() {
    return counters.snapshot();
  }

  /** Stops the pipeline once every batch is out; the last batch stays with the caller. */
  private void endEpoch() {
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
    }
    RuntimeException failure = null;
    try {
      if (source != null) {
        source.close();
      }
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      if (ownsWorkers && workers != null) {
        workers.close();
      }
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    loader.epochEnded(counters.snapshot());
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Ends the epoch: cancels the work in flight, joins the threads it started and returns every
   * slot, the batch last returned included. Safe to call twice.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (source != null) {
      source.close(); // wakes a next() waiting in another thread
    }
    Batch last;
    synchronized (this) {
      awaitTakeDone();
      last = held;
    }
    if (last != null) {
      last.close();
    }
    endEpoch();
  }

  /** Waits, holding {@code this}, until a next() in another thread has let go of its slot. */
  private void awaitTakeDone() {
    long deadline = System.nanoTime() + TAKE_GRACE_MILLIS * 1_000_000;
    boolean interrupted = false;
    while (taking) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
