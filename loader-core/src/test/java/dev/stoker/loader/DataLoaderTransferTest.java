package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.device.Device;
import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.device.DeviceEvent;
import dev.stoker.loader.device.HostCopyDevice;
import dev.stoker.loader.device.TransferEngine;
import dev.stoker.loader.device.TransferSpec;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.memory.SlotPool;
import dev.stoker.loader.metrics.EpochMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DataLoaderTransferTest {

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldDeliverDeviceCopiesInOrderAndReturnEveryBuffer(int numWorkers) {
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader =
        new DataLoader(
            new IndexDataset(100),
            LoaderOptions.builder()
                .batchSize(8)
                .shuffle(true)
                .seed(5)
                .numWorkers(numWorkers)
                .transferDepth(3)
                .build(),
            device);
    List<Long> viaDevice = new ArrayList<>();
    List<Long> expected = new ArrayList<>();
    for (Batch batch : loader.epoch(0)) {
      for (long label : IndexDataset.labels(batch)) {
        viaDevice.add(label);
      }
      for (int r = 0; r < batch.size(); r++) {
        expected.add(batch.sampleIndex(r));
      }
    }
    assertThat(viaDevice).hasSize(100).containsExactlyElementsOf(expected).doesNotHaveDuplicates();
    assertThat(device.copies()).isEqualTo(13);
    assertThat(loader.metrics().last().transferBatches()).isEqualTo(13);
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
    assertThat(device.allEnginesClosed()).isTrue();
  }

  @ParameterizedTest(name = "stop after {0} batches")
  @ValueSource(ints = {0, 1, 5})
  void shouldReturnHostSlotsAndDeviceBuffersOnEarlyClose(int consumed) {
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader =
        new DataLoader(
            new IndexDataset(400).sleepingUpTo(50),
            LoaderOptions.builder().batchSize(4).numWorkers(3).name("transfer-" + consumed).build(),
            device);
    try (BatchIterator it = loader.epoch(0).iterator()) {
      for (int i = 0; i < consumed; i++) {
        it.next();
      }
    }
    assertThat(loader.slotsOut()).isZero();
    assertThat(device.buffersOut()).isZero();
    assertThat(LoaderLeaks.threadsOf(loader.name()))
        .as("the epoch's workers stopped; the transfer thread lives as long as the loader")
        .containsExactly(loader.name() + "-transfer");
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
  }

  /**
   * Copies issued behind one another overlap on the host's clock (the next is issued before the
   * first is waited for); the stage's time is the time some copy was in flight, so it cannot exceed
   * the epoch's wall time, and it covers every copy's own time on the stream.
   */
  @Test
  void shouldCountOverlappingCopiesOnceInTheTransferTime() {
    int copyMillis = 15;
    try (StreamDevice device = new StreamDevice(copyMillis);
        DataLoader loader =
            new DataLoader(
                new IndexDataset(96),
                LoaderOptions.builder()
                    .batchSize(8)
                    .numWorkers(2)
                    .transferDepth(3)
                    .name("transfer-overlap")
                    .build(),
                device)) {
      for (Batch batch : loader.epoch(0)) {
        batch.close();
      }
      EpochMetrics metrics = loader.metrics().last();
      assertThat(metrics.transferBatches()).isEqualTo(12);
      assertThat(device.copies()).isEqualTo(12);
      assertThat(metrics.transferNanos())
          .as("the time some copy was in flight: within the epoch's wall time")
          .isLessThanOrEqualTo(metrics.wallNanos())
          .as("and at least the copies' own time, one after another on the stream")
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(12L * copyMillis));
    }
  }

  /**
   * A device whose copies run one after another on a stream of their own (a single thread), each
   * taking at least {@code copyMillis}, and complete after {@code copy} has returned, as a GPU's.
   */
  private static final class StreamDevice implements Device {
    private final int copyMillis;
    private final ExecutorService stream = Executors.newSingleThreadExecutor();
    private volatile int copies;

    StreamDevice(int copyMillis) {
      this.copyMillis = copyMillis;
    }

    int copies() {
      return copies;
    }

    @Override
    public String name() {
      return "stream";
    }

    @Override
    public boolean isHost() {
      return false;
    }

    @Override
    public HostAllocator hostAllocator(String name, long limit, boolean pinMemory) {
      return new DirectAllocator(name, limit);
    }

    @Override
    public TransferEngine openTransfer(TransferSpec spec) {
      SlotPool pool =
          new SlotPool(
              spec.loader() + "-device",
              DirectAllocator.INSTANCE,
              spec.slotBytes(),
              spec.buffers());
      return new TransferEngine() {
        @Override
        public DeviceBuffer copy(HostMemory source, int bytes) throws InterruptedException {
          HostMemory target = pool.acquire(() -> false);
          Future<?> done =
              stream.submit(
                  () -> {
                    Thread.sleep(copyMillis);
                    target.bytes().put(0, source.bytes(), 0, bytes);
                    copies++;
                    return null;
                  });
          return new StreamBuffer(target, done);
        }

        @Override
        public void release(DeviceBuffer buffer) {
          pool.release(((StreamBuffer) buffer).memory);
        }

        @Override
        public void close() {
          pool.close();
        }
      };
    }

    @Override
    public void close() {
      stream.shutdownNow();
    }
  }

  private record StreamBuffer(HostMemory memory, Future<?> done) implements DeviceBuffer {
    @Override
    public String deviceName() {
      return "stream";
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
      return new DeviceEvent() {
        @Override
        public long handle() {
          return 0;
        }

        @Override
        public boolean isComplete() {
          return done.isDone();
        }

        @Override
        public void awaitOnHost() throws InterruptedException {
          try {
            done.get();
          } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
          }
        }
      };
    }
  }
}
