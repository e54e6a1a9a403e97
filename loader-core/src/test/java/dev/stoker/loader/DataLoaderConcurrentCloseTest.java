package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.DirectAllocator;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A loader closed from another thread (a task being killed) while its consumer iterates. */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DataLoaderConcurrentCloseTest {

  /** Runs the consumer loop on its own thread; returns what ended it (null: ran out of epochs). */
  private static Thread consumer(
      DataLoader loader, int epochs, AtomicReference<Throwable> ended, CountDownLatch started) {
    Thread thread =
        new Thread(
            () -> {
              try {
                for (int epoch = 0; epoch < epochs; epoch++) {
                  for (Batch batch : loader.epoch(epoch)) {
                    IndexDataset.labels(batch);
                    started.countDown();
                  }
                }
              } catch (Throwable e) {
                ended.set(e);
              }
            },
            "consumer");
    thread.start();
    return thread;
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {1, 2})
  void shouldEndAWaitingConsumerAndReturnEverySlot(int numWorkers) throws Exception {
    IndexDataset dataset = new IndexDataset(64).hangingOn(9); // batch 2 never comes
    DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(numWorkers)
                .name("killed-" + numWorkers)
                .build());
    AtomicReference<Throwable> ended = new AtomicReference<>();
    CountDownLatch twoBatchesRead = new CountDownLatch(2);
    Thread thread = consumer(loader, 1, ended, twoBatchesRead);
    assertThat(twoBatchesRead.await(10, TimeUnit.SECONDS)).isTrue();

    LoaderLeaks.closeAndCheck(loader);
    thread.join(10_000);

    assertThat(thread.isAlive()).isFalse();
    if (ended.get() != null) { // null: the loop saw the iterator closed before asking again
      assertThat(ended.get())
          .isInstanceOf(CancellationException.class)
          .hasMessageContaining("was closed");
    }
  }

  @Test
  void shouldNeverLeakWhenClosedAtARandomMoment() throws Exception {
    Random random = new Random(7);
    for (int round = 0; round < 40; round++) {
      int workers = random.nextInt(4);
      LoaderOptions.Builder options =
          LoaderOptions.builder()
              .batchSize(1 + random.nextInt(8))
              .numWorkers(workers)
              .name("racing-" + round);
      if (workers > 0) {
        options.prefetchFactor(1 + random.nextInt(3)).persistentWorkers(random.nextBoolean());
      }
      DataLoader loader = new DataLoader(new IndexDataset(200).sleepingUpTo(30), options.build());
      AtomicReference<Throwable> ended = new AtomicReference<>();
      Thread thread = consumer(loader, 50, ended, new CountDownLatch(1));
      Thread.sleep(random.nextInt(20));

      LoaderLeaks.closeAndCheck(loader);
      thread.join(10_000);

      assertThat(thread.isAlive()).as("round %d", round).isFalse();
      Throwable end = ended.get();
      boolean expected =
          end == null
              || end instanceof CancellationException
              || end instanceof IllegalStateException && end.getMessage().contains("closed");
      if (!expected) {
        throw new AssertionError("round " + round + ": the consumer ended with " + end, end);
      }
    }
  }

  @Test
  void shouldReturnWithoutALeakErrorWhileTheConsumerIsInsideWriteAndCancelItsNext()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(64).stuckOn(9, release); // in batch 2's write
    DirectAllocator allocator = new DirectAllocator("inline-kill", 1 << 20);
    DataLoader loader =
        DataLoader.builder(dataset)
            .allocator(allocator)
            .options(LoaderOptions.builder().batchSize(4).name("inline-kill").build())
            .build();
    AtomicReference<Throwable> ended = new AtomicReference<>();
    Thread thread = consumer(loader, 1, ended, new CountDownLatch(1));
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();

    try {
      loader.close(); // a task kill: from another thread, the consumer inside write()
      assertThat(thread.isAlive()).as("close did not wait for the write").isTrue();
      assertThat(ended.get()).isNull();
    } finally {
      release.countDown();
    }
    thread.join(10_000);

    assertThat(thread.isAlive()).isFalse();
    assertThat(ended.get())
        .isInstanceOf(CancellationException.class)
        .hasMessageContaining("was closed");
    LoaderLeaks.closeAndCheck(loader);
    assertThat(dataset.writes).as("no sample after the one being written").hasValue(10);
    allocator.close(); // nothing open: the slot came back and was freed
  }

  @Test
  void shouldCloseItsOwnAllocatorOnceTheSlotOfAWriteLeftByCloseComesBack() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(64).stuckOn(9, release);
    DataLoader loader =
        new DataLoader(dataset, LoaderOptions.builder().batchSize(4).name("inline-owned").build());
    AtomicReference<Throwable> ended = new AtomicReference<>();
    Thread thread = consumer(loader, 1, ended, new CountDownLatch(1));
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();

    loader.close();
    DirectAllocator allocator = (DirectAllocator) loader.allocator();
    assertThat(allocator.openBytes())
        .as("the slot in the consumer's write")
        .isEqualTo(loader.layout().slotBytes());
    release.countDown();
    thread.join(10_000);

    assertThat(ended.get()).isInstanceOf(CancellationException.class);
    LoaderLeaks.closeAndCheck(loader);
    assertThat(allocator.openBytes()).isZero();
    assertThatThrownBy(() -> allocator.allocate(8))
        .as("closed once the slot was back")
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("host allocator 'inline-owned-host' is closed");
  }

  @Test
  void shouldReportAStuckWorkerWithoutAFalseLeakAndFreeItsSlotWhenItReturns() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(64).stuckOn(9, release);
    DirectAllocator allocator = new DirectAllocator("stuck-worker", 1 << 20);
    DataLoader loader =
        DataLoader.builder(dataset)
            .allocator(allocator)
            .options(
                LoaderOptions.builder().batchSize(4).numWorkers(2).name("stuck-worker").build())
            .build();
    AtomicReference<Throwable> ended = new AtomicReference<>();
    Thread thread = consumer(loader, 1, ended, new CountDownLatch(1));
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();

    try {
      assertThatThrownBy(loader::close)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("stuck in dataset code")
          .satisfies(e -> assertThat(e.getSuppressed()).as("no slot reported as leaked").isEmpty());
    } finally {
      release.countDown();
    }
    thread.join(10_000);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!LoaderLeaks.threadsOf(loader.name()).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }

    assertThat(thread.isAlive()).isFalse();
    assertThat(ended.get()).isInstanceOf(CancellationException.class);
    LoaderLeaks.closeAndCheck(loader);
    allocator.close();
  }
}
