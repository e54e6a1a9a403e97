package dev.stoker.loader;

import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.pipeline.EpochPipeline;
import dev.stoker.loader.pipeline.StagedBatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The consumer's side of one epoch. {@link #next()} returns the batches in order and first ends the
 * batch it returned before, if the caller has not closed it. {@link #close()} (or the end of the
 * epoch, or starting another one) stops the work in flight and returns every slot. {@code
 * hasNext()} changes nothing, but for a stream of unknown length it may wait for the stream to tell
 * whether another batch comes.
 *
 * <p>{@link #nextKept()} hands the next batch out without any later call ending it, for a consumer
 * that works on several batches at once (another process reading them in place while the next ones
 * are posted): each stays valid until the caller closes it or the epoch ends. Kept batches hold
 * host slots, so at most {@link #keepLimit()} are open at once.
 *
 * <p>One thread iterates; {@link #close()} may come from any other (a task being killed): a {@code
 * next()} waiting then ends with a {@link CancellationException}, and the slot it may just have got
 * goes back before {@code close()} returns. With {@code numWorkers=0} that {@code next()} may be
 * inside the dataset's own code, filling its batch in the consumer's thread: {@code close()} then
 * waits for it at most {@link #TAKE_GRACE_MILLIS} ms and returns; the {@code next()} ends with a
 * {@link CancellationException} once the dataset returns, and gives its slot back then.
 */
public final class BatchIterator implements Iterator<Batch>, AutoCloseable {
  /**
   * Time a concurrent close waits for a next() in progress to let go of its slot: the grace the
   * loading threads get before they are interrupted. Past it, the next() (filling its batch in
   * dataset code, with numWorkers=0) gives its slot back itself.
   */
  public static final long TAKE_GRACE_MILLIS = 1_000;

  private final String loader;
  private final BatchLayout layout;
  private final EpochSource source;
  private final EpochPipeline pipeline;
  private final EpochCounters counters;
  private final int batchCount;
  private final Consumer<EpochMetrics> onEnd;
  private final Object closeLock = new Object();

  private Batch held;

  /** Batches handed out by nextKept() and not yet ended; guarded by {@code this}. */
  private final Set<Batch> kept = Collections.newSetFromMap(new IdentityHashMap<>());

  /** Host slots of the loader, shared by kept batches and those being filled; 0 on a device. */
  private final int slots;

  private long handedOutAt;
  private int delivered;

  /** For a stream of unknown length: batch {@code delivered}, taken by hasNext(). */
  private StagedBatch pending;

  /** A failure hasNext() met, for next() to throw. */
  private Throwable pendingFailure;

  private boolean ended;
  private volatile boolean closed;

  /** True while next() waits for a batch; guarded by {@code this}. */
  private boolean taking;

  /** Batches ended and on their way back to the pool: see {@link #awaitReturns()}. */
  private final AtomicInteger returning = new AtomicInteger();

  BatchIterator(
      String loader,
      BatchLayout layout,
      EpochSource source,
      EpochPipeline pipeline,
      EpochCounters counters,
      int batchCount,
      int slots,
      Consumer<EpochMetrics> onEnd) {
    this.loader = loader;
    this.slots = slots;
    this.layout = layout;
    this.source = source;
    this.pipeline = pipeline;
    this.counters = counters;
    this.batchCount = batchCount;
    this.onEnd = onEnd;
    if (batchCount == 0) {
      endEpoch();
    }
  }

  public int epoch() {
    return pipeline.epoch();
  }

  /** Batches in this epoch, or -1 for a stream whose length is known only at its end. */
  public int batchCount() {
    return batchCount;
  }

  /** Batches handed out so far. */
  public int delivered() {
    return delivered;
  }

  String loaderName() {
    return loader;
  }

  BatchLayout layout() {
    return layout;
  }

  long sampleIndex(int batch, int row) {
    return source.sampleIndex(batch, row);
  }

  /**
   * Whether another batch comes. For a stream of unknown length this takes the next batch from the
   * pipeline (waiting for it, within the loader's timeout) and keeps it for {@link #next()}; a
   * failure met on the way is kept too, and {@link #next()} throws it.
   */
  @Override
  public boolean hasNext() {
    if (pendingFailure != null) {
      return true;
    }
    if (closed) {
      return false;
    }
    if (batchCount >= 0) {
      return delivered < batchCount;
    }
    if (!hasPending() && !hasEnded()) {
      boolean came;
      try {
        checkSlotLeft(true);
        came = takeIntoPending();
      } catch (RuntimeException | Error e) {
        pendingFailure = e;
        return true;
      }
      if (!came) {
        endEpoch();
        return false;
      }
    }
    return hasPending();
  }

  private synchronized boolean hasPending() {
    return pending != null;
  }

  /**
   * The next batch, in order.
   *
   * @throws BatchLoadException if it failed to load, naming the stage; the epoch ends
   * @throws LoaderTimeoutException if it did not come within the timeout; the epoch ends
   * @throws CancellationException if the epoch was closed meanwhile, or the caller was interrupted
   *     while waiting (its interrupt flag is then set again)
   */
  @Override
  public Batch next() {
    return advance(false);
  }

  /**
   * The next batch, in order, kept: unlike with {@link #next()}, asking for later batches does not
   * end it; it stays valid until the caller closes it, or the epoch or the loader is closed. It
   * ends the batch the last {@link #next()} returned, as any request for the next batch does.
   *
   * @throws IllegalStateException if {@link #keepLimit()} kept batches are open (the loader would
   *     have no slot to fill the next one in: close one first), or the loader delivers to a device
   * @throws BatchLoadException, LoaderTimeoutException, CancellationException as {@link #next()}
   */
  public Batch nextKept() {
    if (slots == 0) {
      throw new IllegalStateException(
          "loader '"
              + loader
              + "' delivers to a device: kept "
              + "batches are host batches (use next(), and copy on the device what must outlive "
              + "the step)");
    }
    return advance(true);
  }

  /**
   * How many kept batches may be open at once: the loader's host slots ({@code numWorkers x
   * prefetchFactor + 1}, or 1 with {@code numWorkers=0}, plus 1 for a stream of unknown length). A
   * consumer asks for the next batch with at most {@code keepLimit() - 1} open.
   */
  public int keepLimit() {
    return slots;
  }

  private Batch advance(boolean keep) {
    throwPendingFailure();
    if (closed) {
      throw closedMeanwhile();
    }
    if (!hasNext()) {
      if (closed) { // closed between the check above and hasNext()
        throw closedMeanwhile();
      }
      throw new NoSuchElementException(
          "epoch " + epoch() + " of loader '" + loader + "' has no batch after " + delivered);
    }
    throwPendingFailure(); // met by the hasNext() just now
    Batch previous;
    synchronized (this) {
      previous = held;
    }
    if (previous != null) {
      // Ended while still held, so that a close() from another thread finds it there or sees
      // its return under way, never neither; release() clears held once the slot is back.
      previous.supersede();
    }
    if (!hasPending()) {
      checkSlotLeft(false);
      if (!takeIntoPending()) {
        throw new IllegalStateException(
            "loader '"
                + loader
                + "' epoch "
                + epoch()
                + ": the source ended at batch "
                + delivered
                + " of its planned "
                + batchCount);
      }
    }
    long now = System.nanoTime();
    Batch batch;
    // The batch leaves pending and becomes held (or kept) in one step: a close() from another
    // thread finds its slot in one of them, never in this thread's hands alone.
    synchronized (this) {
      if (closed) {
        throw closedMeanwhile(); // close() returns the slot still in pending
      }
      batch = new Batch(this, pending);
      pending = null;
      if (keep) {
        kept.add(batch);
      } else {
        held = batch;
      }
    }
    handedOutAt = now;
    delivered++;
    counters.addDelivered(batch.size(), pipeline.ready());
    if (delivered == batchCount) {
      endEpoch();
    }
    return batch;
  }

  /**
   * Refuses to take another batch when the consumer holds every host slot in kept batches (and,
   * with {@code countHeld}, the batch of the last next()): the fill would wait for a slot only the
   * consumer can give back.
   */
  private synchronized void checkSlotLeft(boolean countHeld) {
    int open = kept.size() + (countHeld && held != null ? 1 : 0);
    if (!kept.isEmpty() && open >= slots) {
      throw new IllegalStateException(
          String.format(
              "loader '%s' epoch %d: %d batches are "
                  + "open (kept) and the loader has %d host slots, so batch %d could never be filled; "
                  + "close a kept batch before asking for the next (keepLimit() = %d)",
              loader, epoch(), open, slots, delivered, slots));
    }
  }

  /** Throws the failure a hasNext() met, once. */
  private void throwPendingFailure() {
    Throwable thrown = pendingFailure;
    if (thrown == null) {
      return;
    }
    pendingFailure = null;
    if (thrown instanceof RuntimeException runtime) {
      throw runtime;
    }
    throw (Error) thrown;
  }

  /**
   * Takes batch {@code delivered} from the pipeline into {@code pending}; false at the end of a
   * stream. A failure ends the epoch and is thrown. A close from another thread meanwhile waits
   * until the batch is back, or finds it in {@code pending}. The time in here is the consumer's
   * wait for data, wherever it asks ({@code next()}, or {@code hasNext()} for a stream of unknown
   * length); the time since the last batch was handed out is its hold.
   */
  private boolean takeIntoPending() {
    synchronized (this) {
      if (closed) {
        throw closedMeanwhile();
      }
      taking = true;
    }
    long asked = System.nanoTime();
    if (delivered > 0) {
      counters.addConsumerHold(asked - handedOutAt);
    }
    StagedBatch staged;
    try {
      staged = pipeline.take(delivered);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failed(false);
      throw new CancellationException(
          "interrupted while waiting for batch "
              + delivered
              + " of epoch "
              + epoch()
              + " of loader '"
              + loader
              + "'");
    } catch (CancellationException e) {
      failed(false);
      throw e;
    } catch (LoaderTimeoutException e) {
      failed(true);
      throw e;
    } catch (RuntimeException | Error e) {
      failed(false);
      throw e;
    }
    counters.addConsumerWait(System.nanoTime() - asked);
    synchronized (this) {
      doneTaking();
      if (closed) {
        if (staged != null) {
          pipeline.release(staged);
        }
        throw closedMeanwhile();
      }
      pending = staged;
    }
    return staged != null;
  }

  /** Ends the epoch after a failed take: at once after a timeout, which must not wait longer. */
  private void failed(boolean timedOut) {
    synchronized (this) {
      doneTaking();
    }
    if (timedOut) {
      synchronized (closeLock) {
        closed = true;
        pipeline.abort();
      }
    }
    close();
  }

  /** Called holding {@code this}. */
  private void doneTaking() {
    taking = false;
    notifyAll();
  }

  private CancellationException closedMeanwhile() {
    return new CancellationException(
        "epoch "
            + epoch()
            + " of loader '"
            + loader
            + "' was closed while batch "
            + delivered
            + " was asked for");
  }

  /** Counts a batch that ended and is on its way back ({@link #release}). */
  void returnStarted() {
    returning.incrementAndGet();
  }

  /** Returns a batch's memory; called by {@link Batch} once it ends. */
  void release(Batch batch, StagedBatch staged) {
    try {
      synchronized (this) {
        if (held == batch) {
          held = null;
        }
        kept.remove(batch);
      }
      pipeline.release(staged);
    } finally {
      // only a close() waits for returns, and it marks the iterator closed before it waits
      if (returning.decrementAndGet() == 0 && closed) {
        synchronized (this) {
          notifyAll();
        }
      }
    }
  }

  /** The metrics of this epoch so far. */
  public EpochMetrics metrics() {
    return counters.snapshot();
  }

  /** Stops the pipeline once the epoch is over; the last batch stays with the caller. */
  private void endEpoch() {
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
    }
    try {
      pipeline.close();
    } finally {
      onEnd.accept(counters.snapshot());
    }
  }

  /**
   * True if a next() in another thread still had a slot out, inside dataset code, when the grace of
   * {@link #close()} ran out: it gives that slot back itself when the dataset returns.
   */
  synchronized boolean fillingAfterClose() {
    return closed && taking;
  }

  /** True once the epoch is over: every batch handed out, or closed. */
  synchronized boolean hasEnded() {
    return ended;
  }

  /**
   * Ends the epoch: cancels the work in flight, stops the threads it started and returns every
   * slot, the batch last returned included. Safe to call twice and from any thread; every call
   * returns once the first is done.
   */
  @Override
  public void close() {
    synchronized (closeLock) {
      closed = true;
      pipeline.close(); // wakes a next() waiting in another thread
      Batch last;
      List<Batch> keptOpen;
      StagedBatch unclaimed;
      synchronized (this) {
        awaitTakeDone();
        last = held;
        held = null;
        keptOpen = new ArrayList<>(kept);
        unclaimed = pending;
        pending = null;
      }
      if (last != null) {
        last.epochClosed();
      }
      for (Batch batch : keptOpen) {
        batch.epochClosed();
      }
      if (unclaimed != null) {
        pipeline.release(unclaimed);
      }
      synchronized (this) {
        awaitReturns();
      }
      endEpoch();
    }
  }

  /** Waits, holding {@code this}, until a next() in another thread has let go of its slot. */
  private void awaitTakeDone() {
    awaitWhile(() -> taking);
  }

  /**
   * Waits, holding {@code this}, until a batch that another thread ended (its consumer closing it,
   * or asking for the next) is back in the pool: between the end and the return the slot is in that
   * thread's hands alone, and the pool must not be closed under it.
   */
  private void awaitReturns() {
    awaitWhile(() -> returning.get() > 0);
  }

  /** Waits, holding {@code this}, while {@code condition} holds, at most the take grace. */
  private void awaitWhile(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TAKE_GRACE_MILLIS * 1_000_000;
    boolean interrupted = false;
    while (condition.getAsBoolean()) {
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
