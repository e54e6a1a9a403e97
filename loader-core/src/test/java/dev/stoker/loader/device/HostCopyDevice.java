package dev.stoker.loader.device;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SlotPool;
import java.util.ArrayList;
import java.util.List;

/**
 * A device whose memory is a second region of host memory: it exercises the transfer stage
 * without a GPU. Each copy really copies the slot into a buffer of the engine's own pool.
 */
public final class HostCopyDevice implements Device {
  private final List<SlotPool> pools = new ArrayList<>();
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
  public HostAllocator hostAllocator(boolean pinMemory) {
    return DirectAllocator.INSTANCE;
  }

  /** Copies made so far. */
  public int copies() {
    return copies;
  }

  /** Device buffers out, over every engine opened. */
  public synchronized int buffersOut() {
    return pools.stream().mapToInt(SlotPool::outstanding).sum();
  }

  /** Whether every engine opened was closed. */
  public synchronized boolean allEnginesClosed() {
    return pools.stream().allMatch(SlotPool::isClosed);
  }

  @Override
  public synchronized TransferEngine openTransfer(String name, int slotBytes, int depth) {
    SlotPool pool = new SlotPool(name + "-device", DirectAllocator.INSTANCE, slotBytes, depth + 2);
    pools.add(pool);
    return new TransferEngine() {
      @Override
      public DeviceBuffer copy(HostMemory source, int bytes) throws InterruptedException {
        HostMemory target = pool.acquire(() -> false);
        target.bytes().put(0, source.bytes(), 0, bytes);
        copies++;
        return new Buffer(target);
      }

      @Override
      public void release(DeviceBuffer buffer) {
        pool.release(((Buffer) buffer).memory);
      }

      @Override
      public void close() {
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
  }
}
