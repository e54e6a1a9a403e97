package dev.stoker.loader.device;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SlotPool;
import java.util.ArrayList;
import java.util.List;

/**
 * A device whose memory is a second region of host memory: it exercises the transfer stage without
 * a GPU. Each copy really copies the slot into a buffer of the engine's own pool. Records the
 * thread that opened, used and closed each engine.
 */
public class HostCopyDevice implements Device {
  private final List<SlotPool> pools = new ArrayList<>();
  private final List<String> engineThreads = new ArrayList<>();
  private volatile int copies;

  @Override
  public String name() {
    return "hostcopy";
  }

  @Override
  public boolean isHost() {
    return false;
  }

  @Override
  public HostAllocator hostAllocator(String name, long limit, boolean pinMemory) {
    return new DirectAllocator(name, limit);
  }

  /** Copies made so far. */
  public int copies() {
    return copies;
  }

  /** Device buffers out, over every engine opened. */
  public synchronized int buffersOut() {
    return pools.stream().mapToInt(SlotPool::outstanding).sum();
  }

  /** Engines opened so far. */
  public synchronized int enginesOpened() {
    return pools.size();
  }

  /** Whether every engine opened was closed. */
  public synchronized boolean allEnginesClosed() {
    return pools.stream().allMatch(SlotPool::isClosed);
  }

  /** "open:thread", "copy:thread" (first copy per engine) and "close:thread", in order. */
  public synchronized List<String> engineThreads() {
    return List.copyOf(engineThreads);
  }

  private synchronized void record(String what) {
    engineThreads.add(what + ":" + Thread.currentThread().getName());
  }

  /** The copy itself; tests override it to fail. */
  protected void copyBytes(HostMemory source, HostMemory target, int bytes) {
    target.bytes().put(0, source.bytes(), 0, bytes);
  }

  @Override
  public synchronized TransferEngine openTransfer(TransferSpec spec) {
    SlotPool pool =
        new SlotPool(
            spec.loader() + "-device", DirectAllocator.INSTANCE, spec.slotBytes(), spec.buffers());
    pools.add(pool);
    record("open");
    return new TransferEngine() {
      private boolean copied;

      @Override
      public DeviceBuffer copy(HostMemory source, int bytes) throws InterruptedException {
        if (!copied) {
          copied = true;
          record("copy");
        }
        HostMemory target = pool.acquire(() -> false);
        try {
          copyBytes(source, target, bytes);
        } catch (RuntimeException | Error e) {
          pool.release(target);
          throw e;
        }
        copies++;
        return new Buffer(target);
      }

      @Override
      public void release(DeviceBuffer buffer) {
        pool.release(((Buffer) buffer).memory);
      }

      @Override
      public void close() {
        record("close");
        pool.close();
      }
    };
  }

  @Override
  public void close() {}

  /** A buffer of the fake device; its memory is readable for checks. */
  public static final class Buffer implements DeviceBuffer {
    final HostMemory memory;

    Buffer(HostMemory memory) {
      this.memory = memory;
    }

    public HostMemory memory() {
      return memory;
    }

    @Override
    public String deviceName() {
      return "hostcopy";
    }

    @Override
    public int size() {
      return memory.size();
    }

    @Override
    public long address() {
      return memory.address();
    }

    @Override
    public DeviceEvent event() {
      return DeviceEvent.COMPLETED;
    }
  }
}
