package dev.stoker.examples.torch;

import dev.stoker.loader.device.CpuDevice;
import dev.stoker.loader.device.Device;
import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.device.DeviceEvent;
import dev.stoker.loader.device.TransferEngine;
import dev.stoker.loader.device.TransferSpec;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import org.bytedeco.javacpp.Pointer;

/**
 * Stands in for {@code cuda:0} in tests without a GPU: its "device memory" is direct memory, each
 * copy is made at once and its event has a handle of its own; it records the event every buffer was
 * told to be reused after, so a test sees what a consumer passed to {@code reuseAfter}.
 */
final class HostMemoryGpu implements Device {
  /** The {@code reuseAfter} handle each buffer got, by buffer address, in the order given. */
  final Map<Long, List<Long>> reuseAfter = new ConcurrentHashMap<>();

  @Override
  public String name() {
    return "cuda:0";
  }

  @Override
  public boolean isHost() {
    return false;
  }

  @Override
  public HostAllocator hostAllocator(String name, long limit, boolean pinMemory) {
    return CpuDevice.INSTANCE.hostAllocator(name, limit, false);
  }

  @Override
  public TransferEngine openTransfer(TransferSpec spec) {
    return new Engine(spec);
  }

  @Override
  public void close() {
    // nothing held
  }

  private final class Engine implements TransferEngine {
    private final BlockingQueue<Buffer> free;

    Engine(TransferSpec spec) {
      free = new ArrayBlockingQueue<>(spec.buffers());
      for (int i = 0; i < spec.buffers(); i++) {
        free.add(new Buffer(ByteBuffer.allocateDirect(spec.slotBytes()), 0x1000 + i));
      }
    }

    @Override
    public DeviceBuffer copy(HostMemory source, int bytes) throws InterruptedException {
      Buffer buffer = free.take();
      buffer.memory.clear();
      buffer.memory.put(source.readOnlyView().limit(bytes));
      return buffer;
    }

    @Override
    public void release(DeviceBuffer buffer) {
      free.add((Buffer) buffer);
    }

    @Override
    public void close() {
      free.clear();
    }
  }

  private final class Buffer implements DeviceBuffer {
    final ByteBuffer memory;
    private final long address;
    private final DeviceEvent event;

    Buffer(ByteBuffer memory, long eventHandle) {
      this.memory = memory;
      this.address = new Pointer(memory).address();
      this.event =
          new DeviceEvent() {
            @Override
            public long handle() {
              return eventHandle;
            }

            @Override
            public boolean isComplete() {
              return true;
            }

            @Override
            public void awaitOnHost() {}
          };
    }

    @Override
    public String deviceName() {
      return "cuda:0";
    }

    @Override
    public int size() {
      return memory.capacity();
    }

    @Override
    public long address() {
      return address;
    }

    @Override
    public DeviceEvent event() {
      return event;
    }

    @Override
    public void reuseAfter(long eventHandle) {
      reuseAfter.computeIfAbsent(address, a -> new ArrayList<>()).add(eventHandle);
    }
  }
}
