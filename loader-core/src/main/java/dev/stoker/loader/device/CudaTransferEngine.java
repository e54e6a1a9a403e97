package dev.stoker.loader.device;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.util.Closer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transfer engine of one loader on one CUDA device, opened, used and closed on the loader's
 * transfer thread (bound to the device when the engine opens). It owns a non-blocking copy stream
 * and {@link TransferSpec#buffers()} device buffers, each with its event, made once; a copy takes
 * the buffer free longest (waiting for one if none is), issues {@code cudaMemcpyAsync} from the
 * host slot on the stream and records the buffer's event after it. {@link #release} returns a
 * buffer from any thread. Every call's code is checked ({@link CudaCallException}).
 */
final class CudaTransferEngine implements TransferEngine {
  private static final Logger LOG = LoggerFactory.getLogger(CudaTransferEngine.class);

  private final CudaRuntime runtime;
  private final DeviceBinding binding;
  private final String where;
  private final int slotBytes;
  private final CudaBuffer[] buffers;
  private final ArrayBlockingQueue<CudaBuffer> free;
  private final AtomicLong deviceBytes;

  /** Event calls hold it shared; closing (which destroys the events) holds it alone. */
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();

  private long stream;
  private volatile boolean closed;

  private CudaTransferEngine(
      CudaRuntime runtime, DeviceBinding binding, TransferSpec spec, AtomicLong deviceBytes) {
    this.runtime = runtime;
    this.binding = binding;
    this.where = binding.where("loader '" + spec.loader() + "'");
    this.slotBytes = spec.slotBytes();
    this.buffers = new CudaBuffer[spec.buffers()];
    this.free = new ArrayBlockingQueue<>(spec.buffers());
    this.deviceBytes = deviceBytes;
  }

  /**
   * Binds the calling thread (the loader's transfer thread) to the device and makes the stream,
   * buffers and events; whatever was made is freed again if one of them fails.
   */
  static CudaTransferEngine open(
      CudaRuntime runtime, DeviceBinding binding, TransferSpec spec, AtomicLong deviceBytes) {
    CudaTransferEngine engine = new CudaTransferEngine(runtime, binding, spec, deviceBytes);
    try {
      binding.bind();
      engine.create();
      return engine;
    } catch (Throwable t) {
      try {
        engine.close();
      } catch (Throwable cleanup) {
        t.addSuppressed(cleanup);
      }
      throw t;
    }
  }

  private void create() {
    long[] out = new long[1];
    check(runtime.streamCreateNonBlocking(out), "cudaStreamCreateWithFlags", "the copy stream");
    stream = out[0];
    for (int i = 0; i < buffers.length; i++) {
      String what =
          "device buffer " + (i + 1) + " of " + buffers.length + " (" + slotBytes + " bytes)";
      check(runtime.malloc(out, slotBytes), "cudaMalloc", what);
      long address = out[0];
      deviceBytes.addAndGet(slotBytes);
      int code = runtime.eventCreate(out);
      if (code != CudaRuntime.SUCCESS) {
        new Closer()
            .add(failure(code, "cudaEventCreateWithFlags", "the event of " + what))
            .run(() -> freeBuffer(address, what))
            .throwIfAny();
      }
      CudaBuffer buffer =
          new CudaBuffer(
              this, i, address, slotBytes, new CudaEvent(this, out[0], "the copy into " + what));
      buffers[i] = buffer;
      free.add(buffer);
    }
  }

  @Override
  public CudaBuffer copy(HostMemory source, int bytes) throws InterruptedException {
    if (bytes <= 0 || bytes > slotBytes || bytes > source.size()) {
      throw new IllegalArgumentException(
          String.format(
              "bytes: %d (expected: 0 < bytes <= %d, "
                  + "the device buffers' size, and <= %d, the host slot's) on %s",
              bytes, slotBytes, source.size(), where));
    }
    if (source.address() == 0) {
      throw new IllegalStateException(
          "the host slot has no native address (this JVM hides "
              + "direct buffers' addresses) on "
              + where);
    }
    if (closed) {
      throw new IllegalStateException("the transfer engine of " + where + " is closed");
    }
    CudaBuffer buffer = free.take();
    boolean issued = false;
    try {
      long after = buffer.takeReuseAfter();
      int code = after == 0 ? CudaRuntime.SUCCESS : runtime.streamWaitEvent(stream, after);
      if (code != CudaRuntime.SUCCESS) {
        throw failure(
            code, "cudaStreamWaitEvent", "the consumer's event before reusing " + label(buffer));
      }
      code = runtime.copyHostToDeviceAsync(buffer.address(), source.address(), bytes, stream);
      if (code != CudaRuntime.SUCCESS) {
        throw failure(code, "cudaMemcpyAsync", bytes + " bytes into " + label(buffer));
      }
      issued = true;
      code = runtime.eventRecord(buffer.event().handle(), stream);
      if (code != CudaRuntime.SUCCESS) {
        throw failure(code, "cudaEventRecord", "the event of " + label(buffer));
      }
      buffer.out.set(true);
      return buffer;
    } catch (Throwable t) {
      if (issued) {
        // The pipeline reuses the host slot once this returns: let the copy from it finish.
        Throwable sync =
            new Closer()
                .run(
                    () ->
                        check(
                            runtime.streamSynchronize(stream),
                            "cudaStreamSynchronize",
                            "the copy stream after a failed copy"))
                .failure();
        if (sync != null) {
          t.addSuppressed(sync);
        }
      }
      free.add(buffer);
      throw t;
    }
  }

  @Override
  public void release(DeviceBuffer buffer) {
    if (!(buffer instanceof CudaBuffer own) || own.engine != this) {
      throw new IllegalArgumentException(
          buffer + " does not belong to the transfer engine of " + where);
    }
    if (!own.out.compareAndSet(true, false)) {
      throw new IllegalStateException(own + " was released twice (or never handed out)");
    }
    if (!closed) {
      free.add(own);
    }
  }

  /**
   * Waits for the copies in flight, then destroys the events and frees the buffers and the stream,
   * even those the consumer still holds (their batches are over once the loader closes). Every step
   * runs; the first failure is thrown with the others suppressed. Safe twice.
   */
  @Override
  public void close() {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      Closer closer = new Closer();
      closer.run(binding::bind);
      if (stream != 0) {
        closer.run(
            () ->
                check(
                    runtime.streamSynchronize(stream), "cudaStreamSynchronize", "the copy stream"));
      }
      int held = 0;
      for (CudaBuffer buffer : buffers) {
        if (buffer == null) {
          continue;
        }
        held += buffer.out.get() ? 1 : 0;
        closer.run(
            () ->
                check(
                    runtime.eventDestroy(buffer.event().handle()),
                    "cudaEventDestroy",
                    "the event of " + label(buffer)));
        closer.run(() -> freeBuffer(buffer.address(), label(buffer)));
      }
      if (stream != 0) {
        closer.run(
            () -> check(runtime.streamDestroy(stream), "cudaStreamDestroy", "the copy stream"));
      }
      free.clear();
      if (held > 0) {
        LOG.warn("{}: {} device buffer(s) still held by batches were freed on close", where, held);
      }
      closer.throwIfAny();
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  private void freeBuffer(long address, String what) {
    check(runtime.free(address), "cudaFree", what);
    deviceBytes.addAndGet(-slotBytes);
  }

  /** Called before an event is used; throws if the engine has closed (the event is gone). */
  void beginEventCall(String what) {
    lifecycle.readLock().lock();
    if (closed) {
      lifecycle.readLock().unlock();
      throw new IllegalStateException(
          what + " on " + where + ": the event was destroyed when " + "the loader closed");
    }
  }

  void endEventCall() {
    lifecycle.readLock().unlock();
  }

  void check(int code, String call, String what) {
    CudaCheck.check(runtime, code, call, what, where);
  }

  private CudaCallException failure(int code, String call, String what) {
    return CudaCheck.failure(runtime, code, call, what, where);
  }

  CudaRuntime runtime() {
    return runtime;
  }

  String deviceName() {
    return binding.deviceName();
  }

  String where() {
    return where;
  }

  int bufferCount() {
    return buffers.length;
  }

  /** Buffers free now. */
  int freeBuffers() {
    return free.size();
  }

  private String label(CudaBuffer buffer) {
    return "device buffer " + (buffer.index + 1) + " of " + buffers.length;
  }
}
