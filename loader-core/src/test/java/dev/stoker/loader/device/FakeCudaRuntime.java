package dev.stoker.loader.device;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A CUDA runtime in host memory, for tests without a GPU. Device memory is direct memory; each
 * stream is a thread of its own that runs its copies, event records and waits in order, so copies
 * really are asynchronous; an event completes when its stream reaches it. Calls can be made to fail
 * ({@link #fail}); every resource is counted, and every call that needs a device is logged with its
 * thread and the device bound to that thread.
 */
class FakeCudaRuntime implements CudaRuntime {
  static final int INVALID_VALUE = 1;
  static final int INVALID_DEVICE = 101;
  static final int INVALID_HANDLE = 400;
  static final int ILLEGAL_ADDRESS = 700;

  private static final sun.misc.Unsafe UNSAFE = unsafe();
  private static final long ADDRESS_OFFSET = addressOffset();

  private final int deviceCount;
  private final ThreadLocal<Integer> bound = new ThreadLocal<>();
  private final Map<String, Rule> rules = new ConcurrentHashMap<>();
  private final Map<Long, Long> pinned = new ConcurrentHashMap<>();
  private final Map<Long, ByteBuffer> device = new ConcurrentHashMap<>();
  private final Map<Long, ExecutorService> streams = new ConcurrentHashMap<>();
  private final Map<Long, Event> events = new ConcurrentHashMap<>();
  private final List<String> log = new ArrayList<>();
  private final AtomicLong handles = new AtomicLong(0x1000);
  private final AtomicInteger copies = new AtomicInteger();
  private volatile long copyDelayNanos;
  private volatile CountDownLatch copyGate = new CountDownLatch(0);

  FakeCudaRuntime(int deviceCount) {
    this.deviceCount = deviceCount;
  }

  /** Makes {@code call} return {@code code} after {@code skip} successes, {@code times} times. */
  FakeCudaRuntime fail(String call, int code, int skip, int times) {
    rules.put(call, new Rule(code, skip, times));
    return this;
  }

  /** Each copy takes this long on its stream. */
  FakeCudaRuntime copyDelay(long micros) {
    copyDelayNanos = micros * 1000;
    return this;
  }

  /** Copies issued from now on wait on their streams until {@link #openCopies()}. */
  FakeCudaRuntime holdCopies() {
    copyGate = new CountDownLatch(1);
    return this;
  }

  void openCopies() {
    copyGate.countDown();
  }

  long pinnedBytes() {
    return pinned.values().stream().mapToLong(Long::longValue).sum();
  }

  long deviceBytes() {
    return device.values().stream().mapToLong(ByteBuffer::capacity).sum();
  }

  int liveEvents() {
    return events.size();
  }

  int liveStreams() {
    return streams.size();
  }

  int copies() {
    return copies.get();
  }

  /** "call thread device" for every call that needs a device, in order. */
  synchronized List<String> log() {
    return List.copyOf(log);
  }

  /** {@code bytes} bytes of device memory at {@code address}, read now. */
  byte[] read(long address, int bytes) {
    byte[] out = new byte[bytes];
    for (Map.Entry<Long, ByteBuffer> e : device.entrySet()) {
      if (address >= e.getKey() && address + bytes <= e.getKey() + e.getValue().capacity()) {
        e.getValue().get((int) (address - e.getKey()), out);
        return out;
      }
    }
    throw new IllegalArgumentException(String.format("no device memory at 0x%x", address));
  }

  private synchronized void logCall(String call) {
    Integer current = bound.get();
    log.add(
        call
            + " "
            + Thread.currentThread().getName()
            + " "
            + (current == null ? "unbound" : "cuda:" + current));
  }

  /** The injected failure of {@code call} now, or success. */
  private int rule(String call) {
    Rule rule = rules.get(call);
    return rule == null ? SUCCESS : rule.next();
  }

  @Override
  public int getDeviceCount(int[] count) {
    int code = rule("cudaGetDeviceCount");
    count[0] = code == SUCCESS ? deviceCount : 0;
    return code;
  }

  @Override
  public int driverGetVersion(int[] version) {
    version[0] = 12040;
    return SUCCESS;
  }

  @Override
  public int setDevice(int ordinal) {
    int code = rule("cudaSetDevice");
    if (code == SUCCESS && (ordinal < 0 || ordinal >= deviceCount)) {
      code = INVALID_DEVICE;
    }
    if (code == SUCCESS) {
      bound.set(ordinal);
    }
    return code;
  }

  @Override
  public int getDevice(int[] ordinal) {
    Integer current = bound.get();
    ordinal[0] = current == null ? 0 : current;
    return SUCCESS;
  }

  @Override
  public int hostAlloc(long bytes, long[] address, ByteBuffer[] memory) {
    logCall("cudaHostAlloc");
    int code = rule("cudaHostAlloc");
    if (code != SUCCESS) {
      return code;
    }
    // Like cudaHostAlloc's, the buffer derives from no other; 64 more bytes to align within.
    ByteBuffer block = ByteBuffer.allocateDirect((int) bytes + 64);
    address[0] = addressOf(block);
    memory[0] = block;
    pinned.put(address[0], bytes);
    return SUCCESS;
  }

  @Override
  public int freeHost(long address) {
    logCall("cudaFreeHost");
    int code = rule("cudaFreeHost");
    if (code != SUCCESS) {
      return code;
    }
    return pinned.remove(address) != null ? SUCCESS : INVALID_VALUE;
  }

  @Override
  public int malloc(long[] address, long bytes) {
    logCall("cudaMalloc");
    int code = rule("cudaMalloc");
    if (code != SUCCESS) {
      return code;
    }
    ByteBuffer memory = ByteBuffer.allocateDirect((int) bytes);
    address[0] = addressOf(memory);
    device.put(address[0], memory);
    return SUCCESS;
  }

  @Override
  public int free(long address) {
    logCall("cudaFree");
    int code = rule("cudaFree");
    if (code != SUCCESS) {
      return code;
    }
    return device.remove(address) != null ? SUCCESS : INVALID_VALUE;
  }

  @Override
  public int streamCreateNonBlocking(long[] stream) {
    logCall("cudaStreamCreateWithFlags");
    int code = rule("cudaStreamCreateWithFlags");
    if (code != SUCCESS) {
      return code;
    }
    long handle = handles.incrementAndGet();
    streams.put(
        handle,
        Executors.newSingleThreadExecutor(
            r -> {
              Thread thread = new Thread(r, "fake-cuda-stream-" + handle);
              thread.setDaemon(true);
              return thread;
            }));
    stream[0] = handle;
    return SUCCESS;
  }

  @Override
  public int streamSynchronize(long stream) {
    ExecutorService executor = streams.get(stream);
    int code = rule("cudaStreamSynchronize");
    if (code != SUCCESS || executor == null) {
      return executor == null ? INVALID_HANDLE : code;
    }
    CountDownLatch done = new CountDownLatch(1);
    executor.execute(done::countDown);
    awaitQuietly(done);
    return SUCCESS;
  }

  @Override
  public int streamDestroy(long stream) {
    logCall("cudaStreamDestroy");
    int code = rule("cudaStreamDestroy");
    if (code != SUCCESS) {
      return code;
    }
    ExecutorService executor = streams.remove(stream);
    if (executor == null) {
      return INVALID_HANDLE;
    }
    executor.shutdown(); // like CUDA: queued work still completes
    return SUCCESS;
  }

  @Override
  public int streamWaitEvent(long stream, long event) {
    logCall("cudaStreamWaitEvent");
    int code = rule("cudaStreamWaitEvent");
    ExecutorService executor = streams.get(stream);
    Event e = events.get(event);
    if (code != SUCCESS || executor == null || e == null) {
      return code != SUCCESS ? code : INVALID_HANDLE;
    }
    long target = e.recorded();
    executor.execute(() -> e.await(target));
    return SUCCESS;
  }

  @Override
  public int eventCreate(long[] event) {
    logCall("cudaEventCreateWithFlags");
    int code = rule("cudaEventCreateWithFlags");
    if (code != SUCCESS) {
      return code;
    }
    long handle = handles.incrementAndGet();
    events.put(handle, new Event());
    event[0] = handle;
    return SUCCESS;
  }

  @Override
  public int eventRecord(long event, long stream) {
    logCall("cudaEventRecord");
    int code = rule("cudaEventRecord");
    ExecutorService executor = streams.get(stream);
    Event e = events.get(event);
    if (code != SUCCESS || executor == null || e == null) {
      return code != SUCCESS ? code : INVALID_HANDLE;
    }
    long generation = e.record();
    executor.execute(() -> e.complete(generation));
    return SUCCESS;
  }

  @Override
  public int eventQuery(long event) {
    int code = rule("cudaEventQuery");
    Event e = events.get(event);
    if (code != SUCCESS || e == null) {
      return code != SUCCESS ? code : INVALID_HANDLE;
    }
    return e.isComplete() ? SUCCESS : NOT_READY;
  }

  @Override
  public int eventSynchronize(long event) {
    int code = rule("cudaEventSynchronize");
    Event e = events.get(event);
    if (code != SUCCESS || e == null) {
      return code != SUCCESS ? code : INVALID_HANDLE;
    }
    e.await(e.recorded());
    return SUCCESS;
  }

  @Override
  public int eventDestroy(long event) {
    logCall("cudaEventDestroy");
    int code = rule("cudaEventDestroy");
    if (code != SUCCESS) {
      return code;
    }
    return events.remove(event) != null ? SUCCESS : INVALID_HANDLE;
  }

  @Override
  public int copyHostToDeviceAsync(long target, long host, long bytes, long stream) {
    logCall("cudaMemcpyAsync");
    int code = rule("cudaMemcpyAsync");
    ExecutorService executor = streams.get(stream);
    if (code != SUCCESS || executor == null) {
      return code != SUCCESS ? code : INVALID_HANDLE;
    }
    if (!isDeviceRange(target, bytes)) {
      return ILLEGAL_ADDRESS;
    }
    long delay = copyDelayNanos;
    CountDownLatch gate = copyGate;
    executor.execute(
        () -> {
          awaitQuietly(gate);
          if (delay > 0) {
            long end = System.nanoTime() + delay;
            while (System.nanoTime() < end) {
              Thread.onSpinWait();
            }
          }
          UNSAFE.copyMemory(host, target, bytes);
          copies.incrementAndGet();
        });
    return SUCCESS;
  }

  /** Runs {@code work} on {@code stream} in order with its copies (a consumer's step). */
  void enqueue(long stream, Runnable work) {
    streams.get(stream).execute(work);
  }

  @Override
  public String errorName(int code) {
    return switch (code) {
      case SUCCESS -> "cudaSuccess";
      case INVALID_VALUE -> "cudaErrorInvalidValue";
      case MEMORY_ALLOCATION -> "cudaErrorMemoryAllocation";
      case INSUFFICIENT_DRIVER -> "cudaErrorInsufficientDriver";
      case NO_DEVICE -> "cudaErrorNoDevice";
      case INVALID_DEVICE -> "cudaErrorInvalidDevice";
      case INVALID_HANDLE -> "cudaErrorInvalidResourceHandle";
      case NOT_READY -> "cudaErrorNotReady";
      case ILLEGAL_ADDRESS -> "cudaErrorIllegalAddress";
      default -> "cudaErrorUnknown";
    };
  }

  private boolean isDeviceRange(long address, long bytes) {
    for (Map.Entry<Long, ByteBuffer> e : device.entrySet()) {
      if (address >= e.getKey() && address + bytes <= e.getKey() + e.getValue().capacity()) {
        return true;
      }
    }
    return false;
  }

  static long addressOf(ByteBuffer direct) {
    return UNSAFE.getLong(direct, ADDRESS_OFFSET);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class Rule {
    private final int code;
    private int skip;
    private int times;

    Rule(int code, int skip, int times) {
      this.code = code;
      this.skip = skip;
      this.times = times;
    }

    synchronized int next() {
      if (skip > 0) {
        skip--;
        return SUCCESS;
      }
      if (times > 0) {
        times--;
        return code;
      }
      return SUCCESS;
    }
  }

  /** A CUDA event: recorded generations, and the last one its stream has reached. */
  private static final class Event {
    private long recorded;
    private long completed;

    synchronized long record() {
      return ++recorded;
    }

    synchronized long recorded() {
      return recorded;
    }

    synchronized void complete(long generation) {
      completed = Math.max(completed, generation);
      notifyAll();
    }

    synchronized boolean isComplete() {
      return completed >= recorded;
    }

    synchronized void await(long generation) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      boolean interrupted = false;
      while (completed < generation && System.nanoTime() < deadline) {
        try {
          wait(100);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (completed < generation) {
        throw new IllegalStateException("fake event never completed");
      }
    }
  }

  private static sun.misc.Unsafe unsafe() {
    try {
      Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      return (sun.misc.Unsafe) field.get(null);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @SuppressWarnings("deprecation")
  private static long addressOffset() {
    try {
      return UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("address"));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
