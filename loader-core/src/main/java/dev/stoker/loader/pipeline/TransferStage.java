package dev.stoker.loader.pipeline;

import dev.stoker.loader.BatchLoadException;
import dev.stoker.loader.Stage;
import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.device.TransferEngine;
import dev.stoker.loader.metrics.EpochCounters;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One epoch's transfer, run on the loader's transfer thread ({@link TransferAgent}): takes the
 * filled batches in order, copies each to a device buffer, returns its host slot once the copy has
 * completed, and hands the device batch on, keeping at most {@code depth} of them ahead of the
 * consumer. Whatever fails (an {@link Error} too) is handed on in place of its batch.
 */
final class TransferStage {
  private final String name;
  private final int epoch;
  private final int batchCount;
  private final FillStage upstream;
  private final int slotBytes;
  private final EpochCounters counters;
  private final BatchQueue out;
  private final CountDownLatch done = new CountDownLatch(1);
  private final AtomicInteger ready = new AtomicInteger();
  private final BooleanSupplier cancelledCheck = this::isCancelled;
  private volatile boolean cancelled;

  /**
   * When the last copy waited for had completed: a copy issued behind another starts to count from
   * there, so that the stage's time is the time some copy was in flight, not a sum that counts the
   * overlap of two copies twice. Transfer thread only.
   */
  private long lastCopyEndNanos;

  TransferStage(
      String name,
      int epoch,
      int batchCount,
      FillStage upstream,
      int slotBytes,
      int depth,
      EpochCounters counters) {
    this.name = name;
    this.epoch = epoch;
    this.batchCount = batchCount;
    this.upstream = upstream;
    this.slotBytes = slotBytes;
    this.counters = counters;
    this.out = new BatchQueue(depth);
  }

  private boolean isCancelled() {
    return cancelled;
  }

  /** A copy issued to the device and not yet waited for. */
  private record Copy(StagedBatch host, DeviceBuffer buffer, int batch, long startNanos) {}

  /**
   * The epoch's transfer loop; on the transfer thread. While a copy runs, the next filled batch, if
   * one is ready, is issued behind it before the first is waited for, so that copies follow each
   * other on the device without a gap for the host's wait.
   */
  void run(TransferEngine engine, Carriers carriers, WorkerStatus status) {
    int batch = 0;
    Copy pending = null;
    try {
      while (!cancelled && (batchCount < 0 || batch < batchCount)) {
        status.enter(WorkerStatus.State.WAITING_FOR_BATCH, batch);
        Object in = pending == null ? upstream.take(batch, 0) : upstream.poll(batch);
        if (in == null && pending != null) { // nothing ready yet: finish the copy in flight
          Object done = finish(pending, engine, carriers, status);
          pending = null;
          if (!handOver(done, engine) || !(done instanceof StagedBatch)) {
            return;
          }
          continue;
        }
        if (in == null) {
          return; // cancelled
        }
        Object started = in instanceof StagedBatch host ? start(engine, host, batch, status) : in;
        if (pending != null) {
          Object done = finish(pending, engine, carriers, status);
          pending = null;
          if (!handOver(done, engine) || !(done instanceof StagedBatch)) {
            abandon(started, engine);
            return;
          }
        }
        if (!(started instanceof Copy copy)) {
          handOver(started, engine); // the end of the epoch, or a failure
          return;
        }
        pending = copy;
        batch++;
      }
      if (pending != null) {
        Object done = finish(pending, engine, carriers, status);
        pending = null;
        handOver(done, engine);
      }
    } catch (Throwable t) {
      if (!cancelled) {
        handOverQuietly(BatchLoadException.of(name, Stage.TRANSFER, epoch, batch, t), engine);
      }
    } finally {
      if (pending != null) {
        abandon(pending, engine);
      }
      status.idle();
      done.countDown();
    }
  }

  /** Issues the copy of {@code host}: the copy in flight, or the failure (slot back in pool). */
  private Object start(TransferEngine engine, StagedBatch host, int batch, WorkerStatus status) {
    status.enter(WorkerStatus.State.COPYING, batch);
    long start = System.nanoTime();
    try {
      return new Copy(host, engine.copy(host.host(), slotBytes), batch, start);
    } catch (Throwable t) {
      upstream.release(host);
      return failed(batch, t);
    }
  }

  /**
   * Waits for a copy in flight, returns its host slot to the pool: the batch on the device, a
   * failure, or null if cancelled meanwhile.
   */
  private Object finish(Copy copy, TransferEngine engine, Carriers carriers, WorkerStatus status) {
    status.enter(WorkerStatus.State.COPYING, copy.batch());
    try {
      copy.buffer().event().awaitOnHost();
      StagedBatch onDevice = carriers.of(copy.buffer());
      onDevice.copiedFrom(copy.host());
      long end = System.nanoTime();
      counters.addTransfer(end - Math.max(copy.startNanos(), lastCopyEndNanos));
      lastCopyEndNanos = end;
      return onDevice;
    } catch (Throwable t) {
      engine.release(copy.buffer());
      return failed(copy.batch(), t);
    } finally {
      upstream.release(copy.host()); // the copy has completed (or failed): the slot is free again
    }
  }

  private Object failed(int batch, Throwable t) {
    return cancelled && t instanceof InterruptedException
        ? null
        : new BatchLoadException(
            name,
            Stage.TRANSFER,
            epoch,
            batch,
            -1,
            "copying the batch to the device failed: " + t,
            t);
  }

  /** Gives back what a copy or a batch taken from the fill stage holds, when it will not go on. */
  private void abandon(Object item, TransferEngine engine) {
    if (item instanceof Copy copy) {
      try {
        copy.buffer().event().awaitOnHost(); // the device may still read the host slot
      } catch (Throwable t) {
        // the copy failed too; nothing reads the slot any more
      } finally {
        engine.release(copy.buffer());
        upstream.release(copy.host());
      }
    }
  }

  /** False if {@code item} is null (cancelled) or the stage was cancelled first. */
  private boolean handOver(Object item, TransferEngine engine) throws InterruptedException {
    if (item == null) {
      return false;
    }
    ready.incrementAndGet();
    boolean put = false;
    try {
      put = out.put(item, cancelledCheck);
    } finally {
      if (!put) {
        ready.decrementAndGet();
        if (item instanceof StagedBatch onDevice) {
          engine.release(onDevice.device());
        }
      }
    }
    return put;
  }

  private void handOverQuietly(Object item, TransferEngine engine) {
    try {
      handOver(item, engine);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The transfer engine could not be opened: batch 0 fails with the cause. */
  void failOpen(String device, Throwable cause) {
    try {
      handOverQuietly(
          new BatchLoadException(
              name,
              Stage.OPEN,
              epoch,
              0,
              -1,
              "opening the transfer engine of device '" + device + "' failed: " + cause,
              cause),
          null);
    } finally {
      done.countDown();
    }
  }

  /** The stage will never run (the transfer thread could not be started). */
  void abandon() {
    done.countDown();
  }

  /** Like {@link FillStage#take}, for the batches on the device. */
  Object take(long timeoutNanos) throws InterruptedException {
    Object item = out.take(timeoutNanos, cancelledCheck);
    if (item != null) {
      ready.decrementAndGet();
    }
    return item;
  }

  int ready() {
    return Math.max(0, ready.get());
  }

  void cancel() {
    cancelled = true;
    out.wake();
  }

  boolean awaitDone(long nanos) {
    try {
      return done.await(nanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return done.getCount() == 0;
    }
  }

  /** After {@link #cancel()}: gives back the device buffers of batches never taken. */
  void drain(TransferAgent agent) {
    out.drain(
        item -> {
          if (item instanceof StagedBatch onDevice) {
            agent.release(onDevice);
          }
        });
    ready.set(0);
  }
}
