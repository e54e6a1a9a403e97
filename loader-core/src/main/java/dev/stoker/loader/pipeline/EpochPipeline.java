package dev.stoker.loader.pipeline;

import dev.stoker.loader.BatchLoadException;
import dev.stoker.loader.LoaderTimeoutException;
import dev.stoker.loader.Stage;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;

/**
 * One epoch's pipeline, as the consumer sees it: {@link #take} the batches in order, {@link
 * #release} each when done, {@link #close()} at the end. Built by {@link LoaderPipeline#startEpoch}
 * from the epoch's {@link BatchWriter}: a fill stage on the workers (or the consumer's thread) and,
 * for a device, the transfer stage after it.
 *
 * <p>Closing cancels the work in flight, waits a grace period for the loading threads to stop,
 * interrupts those still in dataset code, and returns every slot and device buffer it can; a thread
 * that is still stuck returns its own slot once it comes back. Closing is safe from any thread and
 * any number of times; every caller returns once the first close is done.
 */
public final class EpochPipeline implements AutoCloseable {
  /** How long a close waits for the loading threads before interrupting them. */
  static final long STOP_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** How long a close waits after interrupting, and an aborted epoch at all. */
  static final long ABORT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final LoaderPipeline loader;
  private final int epoch;
  private final FillStage fill;
  private final TransferStage transfer;
  private final WorkerCrew crew;
  private final boolean ownsCrew;
  private final Object closeLock = new Object();
  private volatile boolean closed;

  EpochPipeline(
      LoaderPipeline loader,
      int epoch,
      FillStage fill,
      TransferStage transfer,
      WorkerCrew crew,
      boolean ownsCrew) {
    this.loader = loader;
    this.epoch = epoch;
    this.fill = fill;
    this.transfer = transfer;
    this.crew = crew;
    this.ownsCrew = ownsCrew;
  }

  public int epoch() {
    return epoch;
  }

  /**
   * Batch {@code batch}, which must be the next in order; with no workers it is filled in the
   * caller's thread first. The caller owns it until {@link #release}.
   *
   * @return the batch, or null if the epoch has no batch {@code batch} (its stream ended)
   * @throws BatchLoadException if the batch failed to load, at whatever stage
   * @throws LoaderTimeoutException if it did not come within the loader's timeout
   * @throws CancellationException if the epoch was closed meanwhile
   * @throws InterruptedException if the caller was interrupted while waiting
   */
  public StagedBatch take(int batch) throws InterruptedException {
    checkOpen(batch);
    if (fill.numWorkers() == 0) {
      fill.fillInline(batch);
    }
    long timeout = loader.config().timeoutNanos();
    Object item = transfer != null ? transfer.take(timeout) : fill.take(batch, timeout);
    if (item == null) {
      checkOpen(batch);
      throw timeout(batch);
    }
    if (item == FillStage.END) {
      return null;
    }
    if (item instanceof BatchLoadException failure) {
      throw failure;
    }
    return (StagedBatch) item;
  }

  private void checkOpen(int batch) {
    if (closed || fill.isCancelledNow()) {
      throw new CancellationException(
          "loader '"
              + loader.config().name()
              + "' epoch "
              + epoch
              + " was closed while batch "
              + batch
              + " was asked for");
    }
  }

  private LoaderTimeoutException timeout(int batch) {
    PipelineConfig config = loader.config();
    long millis = TimeUnit.NANOSECONDS.toMillis(config.timeoutNanos());
    if (transfer != null && fill.ready() > 0) {
      return new LoaderTimeoutException(
          Stage.TRANSFER,
          epoch,
          batch,
          String.format(
              "loader '%s' epoch %d: batch %d did not reach the device within timeout=%d ms;%n  %s"
                  + "%n  %d batch(es) filled and waiting",
              config.name(), epoch, batch, millis, loader.describeTransfer(), fill.ready()));
    }
    return new LoaderTimeoutException(
        Stage.FILL,
        epoch,
        batch,
        String.format(
            "loader '%s' epoch %d: batch %d%s did not come within timeout=%d ms; %s",
            config.name(),
            epoch,
            batch,
            fill.batchCount() < 0 ? "" : " of " + fill.batchCount(),
            millis,
            fill.describe(batch)));
  }

  /** Gives a taken batch back: its host slot to the pool, or its device buffer to the engine. */
  public void release(StagedBatch batch) {
    if (batch.device() != null) {
      loader.releaseDevice(batch);
    } else {
      fill.release(batch);
    }
  }

  /** Batches ready for the consumer right now. */
  public int ready() {
    return transfer != null ? transfer.ready() : fill.ready();
  }

  /** Ends the epoch, giving the loading threads a grace period to stop. */
  @Override
  public void close() {
    close(STOP_GRACE_NANOS);
  }

  /**
   * Ends the epoch at once: the loading threads are interrupted without a grace period, and those
   * that do not stop within a few milliseconds are left to return their slots themselves. For a
   * timeout, which must not wait longer than it said.
   */
  public void abort() {
    close(0);
  }

  private void close(long graceNanos) {
    synchronized (closeLock) {
      if (closed) {
        return;
      }
      closed = true;
      fill.cancel();
      if (transfer != null) {
        transfer.cancel();
      }
      boolean stopped = fill.awaitStopped(graceNanos);
      if (!stopped) {
        crew.interrupt(fill);
        stopped = fill.awaitStopped(ABORT_WAIT_NANOS);
      }
      if (transfer != null) {
        if (!transfer.awaitDone(graceNanos)) {
          loader.interruptTransfer();
          transfer.awaitDone(ABORT_WAIT_NANOS);
        }
        transfer.drain(loader.transferAgent());
      }
      fill.retire();
      if (ownsCrew) {
        // Threads done with the stage end at once: wait for them, so that none outlives its
        // epoch. One still in dataset code ends when it comes back; the loader joins it.
        List<Thread> members = crew.shutdown();
        if (stopped) {
          LoaderThreads.stop(members, STOP_GRACE_NANOS);
        }
      }
    }
  }

  /** Starting failed part-way: nothing runs or will run. */
  void startFailed(boolean crewStarted) {
    if (!crewStarted) {
      fill.abandon();
    }
    if (transfer != null) {
      transfer.abandon();
    }
    close(0);
  }
}
