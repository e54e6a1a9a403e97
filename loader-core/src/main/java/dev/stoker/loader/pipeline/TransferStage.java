package dev.stoker.loader.pipeline;

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

  TransferStage(String name, int epoch, int batchCount, FillStage upstream, int slotBytes,
      int depth, EpochCounters counters) {
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

  /** The epoch's transfer loop; on the transfer thread. */
  void run(TransferEngine engine, Carriers carriers, WorkerStatus status) {
    int batch = 0;
    try {
      for (; !cancelled && (batchCount < 0 || batch < batchCount); batch++) {
        status.enter(WorkerStatus.State.WAITING_FOR_BATCH, batch);
        Object in = upstream.take(batch, 0);
        if (in == null) {
          break;
        }
        Object item = in instanceof StagedBatch host
            ? copy(engine, carriers, host, batch, status) : in;
        if (item == null || !handOver(item, engine) || !(item instanceof StagedBatch)) {
          break;
        }
      }
    } catch (Throwable t) {
      if (!cancelled) {
        handOverQuietly(BatchLoadException.of(name, Stage.TRANSFER, epoch, batch, t), engine);
      }
    } finally {
      status.idle();
      done.countDown();
    }
  }

  /** The batch on the device, a failure, or null if cancelled meanwhile. */
  private Object copy(TransferEngine engine, Carriers carriers, StagedBatch host, int batch,
      WorkerStatus status) {
    status.enter(WorkerStatus.State.COPYING, batch);
    long start = System.nanoTime();
    DeviceBuffer buffer = null;
    try {
      buffer = engine.copy(host.host(), slotBytes);
      buffer.event().awaitOnHost();
      StagedBatch onDevice = carriers.of(buffer);
      onDevice.copiedFrom(host);
      counters.addTransfer(System.nanoTime() - start);
      return onDevice;
    } catch (Throwable t) {
      if (buffer != null) {
        engine.release(buffer);
      }
      return cancelled && t instanceof InterruptedException ? null
          : new BatchLoadException(name, Stage.TRANSFER, epoch, batch, -1,
              "copying the batch to the device failed: " + t, t);
    } finally {
      upstream.release(host); // the copy has completed (or failed): the slot is free again
    }
  }

  private boolean handOver(Object item, TransferEngine engine) throws InterruptedException {
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
      handOverQuietly(new BatchLoadException(name, Stage.OPEN, epoch, 0, -1,
          "opening the transfer engine of device '" + device + "' failed: " + cause, cause), null);
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
    out.drain(item -> {
      if (item instanceof StagedBatch onDevice) {
        agent.release(onDevice);
      }
    });
    ready.set(0);
  }
}
