package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.device.HostCopyDevice;
import dev.stoker.loader.memory.DirectAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Closes that come at the worst moment: from two threads at once, while the consumer is inside
 * dataset code, with an Error thrown by that code afterwards, on a device, in a run of empty
 * chunks. Nothing may hang, throw a false leak, or leave memory or a thread behind.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DataLoaderCloseAttackTest {

  /** Iterates epoch 0 on its own thread; {@code ended} gets what ended it. */
  private static Thread consume(
      DataLoader loader, AtomicReference<Throwable> ended, AtomicInteger taken) {
    Thread thread =
        new Thread(
            () -> {
              try {
                for (Batch batch : loader.epoch(0)) {
                  batch.buffer();
                  taken.incrementAndGet();
                }
              } catch (Throwable t) {
                ended.set(t);
              }
            },
            "attacked-consumer");
    thread.start();
    return thread;
  }

  /**
   * Waits until {@code consumer} has taken {@code batches} batches and blocks, for the next one or
   * in dataset code it runs itself: closed before it asks again, its loop would end quietly instead
   * of failing the wait it is in, which a busy machine makes happen.
   */
  private static void awaitBlocked(Thread consumer, AtomicInteger taken, int batches)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (taken.get() < batches
        || consumer.getState() != Thread.State.WAITING
            && consumer.getState() != Thread.State.TIMED_WAITING) {
      assertThat(System.nanoTime())
          .as("the consumer has taken %d batches and waits, within 10 s", batches)
          .isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  /** Runs {@code close} on {@code n} threads at once; returns what each threw (null: nothing). */
  private static List<Throwable> closeFrom(int n, Runnable close) throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    List<Throwable> thrown = new ArrayList<>();
    List<Thread> closers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Thread closer =
          new Thread(
              () -> {
                Throwable failure = null;
                try {
                  go.await();
                  close.run();
                } catch (Throwable t) {
                  failure = t;
                }
                synchronized (thrown) {
                  thrown.add(failure);
                }
              },
              "closer-" + i);
      closer.start();
      closers.add(closer);
    }
    go.countDown();
    for (Thread closer : closers) {
      closer.join(30_000);
      assertThat(closer.isAlive()).as("a close returned").isFalse();
    }
    return thrown;
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldCloseFromTwoThreadsAtOnceWhileDatasetCodeRuns(int workers) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(64).sleepingUpTo(100).stuckOn(9, release);
    DirectAllocator allocator = new DirectAllocator("twice-" + workers, 1 << 20);
    DataLoader loader =
        DataLoader.builder(dataset)
            .allocator(allocator)
            .options(
                LoaderOptions.builder()
                    .batchSize(4)
                    .numWorkers(workers)
                    .name("twice-" + workers)
                    .build())
            .build();
    AtomicReference<Throwable> ended = new AtomicReference<>();
    AtomicInteger taken = new AtomicInteger();
    Thread consumer = consume(loader, ended, taken);
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();
    awaitBlocked(consumer, taken, 2);

    List<Throwable> thrown;
    try {
      thrown = closeFrom(2, loader::close);
    } finally {
      release.countDown();
    }
    consumer.join(20_000);
    awaitNoThreads(loader);

    if (workers == 0) {
      assertThat(thrown).as("no false leak, from either close").containsOnlyNulls();
    } else {
      // the worker in dataset code ignored its interrupt: reported once, truly
      assertThat(thrown)
          .filteredOn(t -> t != null)
          .hasSize(1)
          .allSatisfy(t -> assertThat(t).hasMessageContaining("stuck in dataset code"));
    }
    assertThat(consumer.isAlive()).isFalse();
    assertThat(ended.get()).isInstanceOf(CancellationException.class);
    LoaderLeaks.closeAndCheck(loader);
    allocator.close();
  }

  @Test
  void shouldCloseTheIteratorAndTheLoaderAtOnceWhileTheConsumerWrites() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(64).stuckOn(9, release);
    DataLoader loader =
        new DataLoader(dataset, LoaderOptions.builder().batchSize(4).name("both").build());
    BatchIterator it = loader.epoch(0).iterator();
    AtomicReference<Throwable> ended = new AtomicReference<>();
    AtomicInteger taken = new AtomicInteger();
    Thread consumer =
        new Thread(
            () -> {
              try {
                while (it.hasNext()) {
                  it.next();
                  taken.incrementAndGet();
                }
              } catch (Throwable t) {
                ended.set(t);
              }
            },
            "attacked-consumer");
    consumer.start();
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();
    awaitBlocked(consumer, taken, 2);

    List<Throwable> thrown;
    try {
      thrown =
          closeFrom(
              2,
              new Runnable() {
                private int calls;

                @Override
                public synchronized void run() {
                  if (calls++ == 0) {
                    it.close();
                  } else {
                    loader.close();
                  }
                }
              });
    } finally {
      release.countDown();
    }
    consumer.join(20_000);

    assertThat(thrown).containsOnlyNulls();
    assertThat(ended.get()).isInstanceOf(CancellationException.class);
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1})
  void shouldFreeTheSlotWhenDatasetCodeLeftByCloseThrowsAnError(int workers) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset =
        new IndexDataset(64)
            .stuckOn(9, release)
            .throwingOn(9, () -> new StackOverflowError("decoder recursed"));
    DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(workers)
                .name("error-after-" + workers)
                .build());
    AtomicReference<Throwable> ended = new AtomicReference<>();
    AtomicInteger taken = new AtomicInteger();
    Thread consumer = consume(loader, ended, taken);
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();
    awaitBlocked(consumer, taken, 2);

    try {
      closeFrom(1, loader::close);
    } finally {
      release.countDown();
    }
    consumer.join(20_000);
    awaitNoThreads(loader);

    assertThat(ended.get())
        .as("the epoch was closed: its failure no longer matters")
        .isInstanceOf(CancellationException.class);
    LoaderLeaks.closeAndCheck(loader);
    DirectAllocator allocator = (DirectAllocator) loader.allocator();
    assertThat(allocator.openBytes())
        .as("the loader's own allocator, closed once all came back")
        .isZero();
  }

  @Test
  void shouldReturnEveryHostSlotAndDeviceBufferWhenClosedWhileTheConsumerWrites() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(64).stuckOn(9, release);
    HostCopyDevice device = new HostCopyDevice();
    DataLoader loader =
        new DataLoader(
            dataset, LoaderOptions.builder().batchSize(4).name("device-kill").build(), device);
    AtomicReference<Throwable> ended = new AtomicReference<>();
    AtomicInteger taken = new AtomicInteger();
    Thread consumer =
        new Thread(
            () -> {
              try {
                for (Batch batch : loader.epoch(0)) {
                  IndexDataset.labels(batch);
                  taken.incrementAndGet();
                }
              } catch (Throwable t) {
                ended.set(t);
              }
            },
            "attacked-consumer");
    consumer.start();
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();
    awaitBlocked(consumer, taken, 2);

    try {
      assertThat(closeFrom(1, loader::close)).containsOnlyNulls();
    } finally {
      release.countDown();
    }
    consumer.join(20_000);

    assertThat(ended.get()).isInstanceOf(CancellationException.class);
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
    assertThat(device.allEnginesClosed()).isTrue();
  }

  @Test
  void shouldStopPullingEmptyChunksInTheConsumersThreadOnceClosed() throws Exception {
    AtomicLong pulled = new AtomicLong();
    CountDownLatch pulling = new CountDownLatch(100);
    StreamedDataset emptyForever =
        new StreamedDataset() {
          @Override
          public Schema schema() {
            return TestStream.SCHEMA;
          }

          @Override
          public long rowCount() {
            return UNKNOWN_ROWS;
          }

          @Override
          public ChunkStream open(StreamRequest request) {
            return new ChunkStream() {
              @Override
              public ColumnChunk next() throws InterruptedException {
                Thread.sleep(0, 200_000); // 2^20 of them would take minutes
                pulled.incrementAndGet();
                pulling.countDown();
                return ColumnChunk.ofBuffers(
                    0, ByteBuffer.allocate(0), ByteBuffer.allocate(0), ByteBuffer.allocate(0));
              }

              @Override
              public void close() {}
            };
          }
        };
    DataLoader loader =
        new DataLoader(
            emptyForever, LoaderOptions.builder().batchSize(4).name("empty-kill").build());
    AtomicReference<Throwable> ended = new AtomicReference<>();
    Thread consumer = consume(loader, ended, new AtomicInteger());
    assertThat(pulling.await(20, TimeUnit.SECONDS)).isTrue();

    assertThat(closeFrom(1, loader::close)).containsOnlyNulls();
    consumer.join(20_000);

    assertThat(consumer.isAlive()).as("stopped pulling at the close").isFalse();
    assertThat(ended.get()).isInstanceOf(CancellationException.class);
    long after = pulled.get();
    Thread.sleep(50);
    assertThat(pulled.get()).isEqualTo(after);
    LoaderLeaks.closeAndCheck(loader);
  }

  private static void awaitNoThreads(DataLoader loader) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!LoaderLeaks.threadsOf(loader.name()).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }
}
