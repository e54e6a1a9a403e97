package dev.stoker.loader.pipeline;

import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.device.TransferEngine;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.metrics.EpochCounters;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Copies each filled batch to the device on a thread of its own, in order, keeping at most
 * {@code depth} copied batches ahead of the consumer: the copy of batch k+1 overlaps the
 * consumer's work on batch k, and its depth is separate from the workers' prefetch. The host slot
 * stays with its batch (carrying the device buffer as a {@link DeviceAttachment}) until the
 * consumer releases it. The stage owns the engine and closes it once the stage is closed and
 * every device buffer is back (the consumer may still hold the last batch when the epoch ends).
 */
public final class TransferStage implements BatchSource {
  private static final long STOP_GRACE_MILLIS = 2_000;

  private final String name;
  private final BatchSource upstream;
  private final TransferEngine engine;
  private final int batchCount;
  private final int slotBytes;
  private final long timeoutNanos;
  private final EpochCounters counters;
  private final BatchQueue queue;
  private final Thread thread;
  private final AtomicInteger ready = new AtomicInteger();
  private final BooleanSupplier cancelledCheck = this::isCancelled;
  private volatile boolean cancelled;
  private int nextBatch;
  private boolean closed;
  /** Device buffers attached to slots that are not back yet; guarded by {@code this}. */
  private int buffersOut;
  private boolean engineClosed;

  public TransferStage(String name, BatchSource upstream, TransferEngine engine, int depth,
      int batchCount, int slotBytes, long timeoutNanos, EpochCounters counters) {
    this.name = name;
    this.upstream = upstream;
    this.engine = engine;
    this.batchCount = batchCount;
    this.slotBytes = slotBytes;
    this.timeoutNanos = timeoutNanos;
    this.counters = counters;
    this.queue = new BatchQueue(depth);
    this.thread = new Thread(this::run, name + "-transfer");
    thread.setDaemon(true);
    thread.start();
  }

  private boolean isCancelled() {
    return cancelled;
  }

  private void run() {
    try {
      for (int batch = 0; batch < batchCount && !cancelled; batch++) {
        if (!transferOne(batch)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (CancellationException e) {
      // closed while waiting upstream
    }
  }

  private boolean transferOne(int batch) throws InterruptedException {
    Object result;
    try {
      HostMemory slot = upstream.next(batch);
      result = copy(slot, batch);
    } catch (BatchLoadException | LoaderTimeoutException e) {
      result = e;
    }
    if (!queue.put(result, cancelledCheck)) {
      if (result instanceof HostMemory slot) {
        release(slot);
      }
      return false;
    }
    ready.incrementAndGet();
    return result instanceof HostMemory;
  }

  private Object copy(HostMemory slot, int batch) throws InterruptedException {
    long start = System.nanoTime();
    try {
      DeviceBuffer buffer = engine.copy(slot, slotBytes);
      synchronized (this) {
        buffersOut++;
      }
      ((DeviceAttachment) slot.attachment()).attachDevice(buffer);
      counters.addTransfer(System.nanoTime() - start);
      return slot;
    } catch (RuntimeException e) {
      upstream.release(slot);
      return new BatchLoadException(
          String.format("loader '%s': copying batch %d to the device failed: %s", name, batch, e),
          counters.epoch(), batch, -1, e);
    }
  }

  @Override
  public HostMemory next(int batch) throws InterruptedException {
    if (batch != nextBatch || batch >= batchCount) {
      throw new IllegalStateException("batch: " + batch + " (expected: " + nextBatch + " of "
          + batchCount + ")");
    }
    nextBatch++;
    long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : Long.MAX_VALUE;
    Object result = queue.take(deadline, cancelledCheck);
    if (result == null) {
      if (cancelled) {
        throw new CancellationException("loader '" + name + "' was closed");
      }
      throw new LoaderTimeoutException(String.format(
          "loader '%s': batch %d did not reach the device within timeout=%d ms; transfer thread "
              + "%s; fill stage has %d batches ready", name, batch,
          TimeUnit.NANOSECONDS.toMillis(timeoutNanos), thread.getState(), upstream.ready()));
    }
    ready.decrementAndGet();
    if (result instanceof RuntimeException failure) {
      throw failure;
    }
    return (HostMemory) result;
  }

  @Override
  public int ready() {
    return ready.get();
  }

  @Override
  public void release(HostMemory slot) {
    DeviceBuffer buffer = ((DeviceAttachment) slot.attachment()).detachDevice();
    upstream.release(slot);
    if (buffer != null) {
      engine.release(buffer);
      synchronized (this) {
        buffersOut--;
        closeEngineIfDone();
      }
    }
  }

  private void closeEngineIfDone() {
    if (closed && buffersOut == 0 && !engineClosed) {
      engineClosed = true;
      engine.close();
    }
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
    queue.wake();
    upstream.close();
    try {
      thread.join(STOP_GRACE_MILLIS);
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(STOP_GRACE_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    queue.drain(item -> {
      if (item instanceof HostMemory slot) {
        release(slot);
      }
    });
    ready.set(0);
    synchronized (this) {
      closeEngineIfDone();
    }
  }
}
