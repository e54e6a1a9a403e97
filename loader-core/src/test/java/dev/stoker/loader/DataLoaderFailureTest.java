package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.device.HostCopyDevice;
import dev.stoker.loader.device.TransferEngine;
import dev.stoker.loader.device.TransferSpec;
import dev.stoker.loader.memory.HostMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every failure on a loader thread reaches the consumer at its batch, names the stage, epoch and
 * batch, keeps the cause, and leaves no thread or slot behind; the loader stays usable. Each test
 * would hang (and hit the timeout) where the loader used to.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DataLoaderFailureTest {

  private static List<Integer> indicesUntilFailure(
      DataLoader loader, int epoch, List<Throwable> failure) {
    List<Integer> seen = new ArrayList<>();
    try {
      for (Batch batch : loader.epoch(epoch)) {
        IndexDataset.labels(batch);
        seen.add(batch.index());
      }
    } catch (RuntimeException e) {
      failure.add(e);
    }
    return seen;
  }

  private static int countBatches(DataLoader loader, int epoch) {
    int batches = 0;
    for (Batch batch : loader.epoch(epoch)) {
      try (batch) {
        IndexDataset.labels(batch);
        batches++;
      }
    }
    return batches;
  }

  @ParameterizedTest(name = "numWorkers={0}, persistent={1}")
  @CsvSource({"0, false", "1, false", "2, false", "1, true", "3, true"})
  void shouldDeliverAFailedSlotAllocationAtItsBatchAndKeepEveryWorker(
      int numWorkers, boolean persistent) {
    FailingAllocator allocator =
        new FailingAllocator(() -> new InternalError("cudaHostAlloc: out of pinned memory"), 1);
    IndexDataset dataset = new IndexDataset(64);
    LoaderOptions.Builder options = LoaderOptions.builder().batchSize(4).numWorkers(numWorkers);
    if (numWorkers > 0) {
      options.persistentWorkers(persistent);
    }
    String name = "alloc-" + numWorkers + "-" + persistent;
    DataLoader loader =
        DataLoader.builder(dataset)
            .options(options.name(name).build())
            .allocator(allocator)
            .build();
    List<Throwable> failure = new ArrayList<>();

    List<Integer> seen = indicesUntilFailure(loader, 0, failure);

    assertThat(seen).isEmpty();
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e -> {
              assertThat(e.stage()).isEqualTo(Stage.ALLOCATE);
              assertThat(e.epoch()).isZero();
              assertThat(e.batch()).as("slots are taken in batch order").isZero();
              assertThat(e)
                  .hasMessageStartingWith(
                      "loader '"
                          + name
                          + "' epoch 0 batch 0 (allocate): "
                          + "java.lang.InternalError: cudaHostAlloc: out of pinned memory")
                  .hasCauseInstanceOf(InternalError.class);
            });
    assertThat(loader.slotsOut()).isZero();

    assertThat(countBatches(loader, 1)).as("the next epoch, every worker there").isEqualTo(16);
    if (numWorkers > 0) {
      assertThat(dataset.writerThreads)
          .filteredOn(n -> n.contains("-worker-"))
          .hasSizeGreaterThanOrEqualTo(numWorkers);
    }
    LoaderLeaks.closeAndCheck(loader);
    assertThat(allocator.openBytes()).isZero();
    allocator.close();
  }

  @Test
  void shouldGoOnWithTheSlotsItHasWhenMemoryRunsOutPastTheMinimum() {
    // 2 workers need 3 slots; the 4th allocation runs out of memory: the epoch goes on with 3.
    FailingAllocator allocator =
        new FailingAllocator(
            () -> new OutOfMemoryError("Cannot reserve direct buffer memory"), 4, 5, 6, 7, 8);
    DataLoader loader =
        DataLoader.builder(new IndexDataset(200))
            .options(LoaderOptions.builder().batchSize(4).numWorkers(2).prefetchFactor(4).build())
            .allocator(allocator)
            .build();

    int batches = 0;
    for (Batch batch : loader.epoch(0)) {
      IndexDataset.labels(batch);
      batches++;
      sleepMillis(2); // a slow consumer: the workers fill ahead and want every slot
    }
    assertThat(batches).isEqualTo(50);
    assertThat(loader.slotsAllocated()).isEqualTo(3);
    assertThat(countBatches(loader, 1)).isEqualTo(50);
    LoaderLeaks.closeAndCheck(loader);
    allocator.close();
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldDeliverAnErrorOfTheCopyAtItsBatchAndCloseWithoutBlamingTheUser(int numWorkers) {
    AtomicInteger copies = new AtomicInteger();
    HostCopyDevice device =
        new HostCopyDevice() {
          @Override
          protected void copyBytes(HostMemory source, HostMemory target, int bytes) {
            if (copies.incrementAndGet() == 3) {
              throw new InternalError("illegal memory access during the copy");
            }
            super.copyBytes(source, target, bytes);
          }
        };
    DataLoader loader =
        new DataLoader(
            new IndexDataset(64),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(numWorkers)
                .name("copyfault-" + numWorkers)
                .build(),
            device);
    List<Throwable> failure = new ArrayList<>();

    assertThat(indicesUntilFailure(loader, 0, failure)).containsExactly(0, 1);
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e -> {
              assertThat(e.stage()).isEqualTo(Stage.TRANSFER);
              assertThat(e.batch()).isEqualTo(2);
              assertThat(e)
                  .hasMessageStartingWith(
                      "loader 'copyfault-"
                          + numWorkers
                          + "' epoch 0 batch 2 (transfer): "
                          + "copying the batch to the device failed: java.lang.InternalError")
                  .hasCauseInstanceOf(InternalError.class);
            });
    assertThat(countBatches(loader, 1)).as("the transfer thread still serves").isEqualTo(16);
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
    assertThat(device.allEnginesClosed()).isTrue();
  }

  @ParameterizedTest(name = "numWorkers={0}, persistent={1}")
  @CsvSource({"0, false", "2, false", "2, true"})
  void shouldLeaveNothingBehindWhenTheTransferEngineFailsToOpen(
      int numWorkers, boolean persistent) {
    AtomicInteger opened = new AtomicInteger();
    HostCopyDevice device =
        new HostCopyDevice() {
          @Override
          public synchronized TransferEngine openTransfer(TransferSpec spec) {
            if (opened.incrementAndGet() == 1) {
              throw new IllegalStateException("cudaSetDevice: no CUDA-capable device");
            }
            return super.openTransfer(spec);
          }
        };
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(4)
            .numWorkers(numWorkers)
            .name("noengine-" + numWorkers + "-" + persistent);
    if (numWorkers > 0) {
      options.persistentWorkers(persistent);
    }
    DataLoader loader = new DataLoader(new IndexDataset(64), options.build(), device);
    List<Throwable> failure = new ArrayList<>();

    assertThat(indicesUntilFailure(loader, 0, failure)).isEmpty();
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e -> {
              assertThat(e.stage()).isEqualTo(Stage.OPEN);
              assertThat(e.batch()).isZero();
              assertThat(e)
                  .hasMessage(
                      "loader 'noengine-"
                          + numWorkers
                          + "-"
                          + persistent
                          + "' epoch 0 "
                          + "batch 0 (open): opening the transfer "
                          + "engine of device 'hostcopy' failed: java.lang.IllegalStateException: "
                          + "cudaSetDevice: no CUDA-capable device");
            });
    assertThat(loader.slotsOut()).isZero();
    assertThat(LoaderLeaks.threadsOf(loader.name())).noneMatch(n -> n.contains("-e0-worker-"));

    assertThat(countBatches(loader, 1)).as("opened again for the next epoch").isEqualTo(16);
    LoaderLeaks.closeAndCheck(loader);
    assertThat(device.buffersOut()).isZero();
  }

  @Test
  void shouldRefuseNothingAndOverflowNothingWithTheLargestTimeoutAndPrefetch() {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(64),
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(1)
                .prefetchFactor(Integer.MAX_VALUE)
                .timeout(Duration.ofNanos(Long.MAX_VALUE))
                .build());
    assertThat(countBatches(loader, 0)).isEqualTo(16);
    assertThat(loader.slotsAllocated()).as("bounded by the memory budget").isLessThanOrEqualTo(17);
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 2})
  void shouldNameTheSampleWhoseWriteThrowsAnUnaskedForInterruptedException(int numWorkers) {
    IndexDataset dataset =
        new IndexDataset(40).throwingOn(13, () -> new InterruptedException("spurious"));
    DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(numWorkers)
                .name("spurious-" + numWorkers)
                .build());
    List<Throwable> failure = new ArrayList<>();

    assertThat(indicesUntilFailure(loader, 0, failure)).containsExactly(0, 1, 2);
    assertThat(Thread.currentThread().isInterrupted())
        .as("nobody interrupted the consumer")
        .isFalse();
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e -> {
              assertThat(e.sampleIndex()).isEqualTo(13);
              assertThat(e)
                  .hasMessageContaining(
                      "' epoch 0 batch 3 (fill): sample 13 (row 1 "
                          + "of 4): java.lang.InterruptedException: spurious")
                  .hasCauseInstanceOf(InterruptedException.class);
            });
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldFailTheBatchOnAnErrorInDatasetCodeEvenWhenSkippingBadSamples(int numWorkers) {
    IndexDataset dataset = new IndexDataset(40).throwingOn(22, StackOverflowError::new);
    LoaderOptions.Builder options =
        LoaderOptions.builder().batchSize(4).numWorkers(numWorkers).onBadSample(OnBadSample.SKIP);
    if (numWorkers > 0) {
      options.persistentWorkers(true);
    }
    DataLoader loader = new DataLoader(dataset, options.build());
    List<Throwable> failure = new ArrayList<>();

    assertThat(indicesUntilFailure(loader, 0, failure)).containsExactly(0, 1, 2, 3, 4);
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            BatchLoadException.class,
            e -> {
              assertThat(e.batch()).isEqualTo(5);
              assertThat(e.sampleIndex()).isEqualTo(22);
              assertThat(e)
                  .hasCauseInstanceOf(StackOverflowError.class)
                  .hasMessageNotContaining("onBadSample");
            });
    dataset.throwingOn(-1, () -> null);
    assertThat(countBatches(loader, 1)).isEqualTo(10);
    LoaderLeaks.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "persistent={0}")
  @ValueSource(booleans = {false, true})
  void shouldReportATimeoutOnTimeAndReleaseTheStuckWorkersSlotWhenItComesBack(boolean persistent)
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(40).stuckOn(13, release);
    DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder()
                .batchSize(4)
                .numWorkers(2)
                .persistentWorkers(persistent)
                .timeout(Duration.ofMillis(300))
                .name("stuck-" + persistent)
                .build());
    long start = System.nanoTime();
    List<Throwable> failure = new ArrayList<>();

    List<Integer> seen = indicesUntilFailure(loader, 0, failure);
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(seen).containsExactly(0, 1, 2);
    assertThat(failure)
        .singleElement()
        .isInstanceOfSatisfying(
            LoaderTimeoutException.class,
            e -> {
              assertThat(e.stage()).isEqualTo(Stage.FILL);
              assertThat(e.batch()).isEqualTo(3);
              assertThat(e)
                  .hasMessageContaining("batch 3 of 10 did not come within timeout=300 ms")
                  .hasMessageContaining("filling batch 3, row 1 of 4 (sample 13)");
            });
    // The time to fill three batches plus the timeout, plus a margin for a loaded machine; the
    // report used to wait 2 s more for the stuck worker first.
    assertThat(waitedMillis).as("the timeout arrived on time").isLessThan(300 + 1_500);
    assertThat(loader.slotsOut()).as("the stuck worker still holds its slot").isEqualTo(1);

    if (persistent) {
      dataset.stuckOn(-1, release);
      assertThat(countBatches(loader, 1))
          .as("a fresh worker took the stuck one's place")
          .isEqualTo(10);
    }
    release.countDown();
    awaitTrue(() -> loader.slotsOut() == 0, "the slot came back with the worker");
    LoaderLeaks.closeAndCheck(loader);
  }

  @Test
  void shouldReportAThreadStuckInDatasetCodeOnCloseAndFreeItsSlotWhenItReturns() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    IndexDataset dataset = new IndexDataset(40).stuckOn(5, release);
    DataLoader loader =
        new DataLoader(
            dataset, LoaderOptions.builder().batchSize(4).numWorkers(2).name("wedged").build());
    BatchIterator it = loader.epoch(0).iterator();
    it.next();
    assertThat(dataset.stuck.await(10, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(loader::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "loader 'wedged': thread(s) still running after close, stuck "
                + "in dataset code: wedged-e0-worker-1 (WAITING)")
        .hasMessageContaining("their slots are freed when they return");

    release.countDown();
    awaitTrue(() -> loader.pool().allocated() == 0, "the slot was freed once back");
    awaitTrue(() -> LoaderLeaks.threadsOf("wedged").isEmpty(), "the thread ended");
    loader.close(); // done already: nothing more to report
  }

  @Test
  void shouldReturnFromCloseOnEveryThreadOnlyOnceEverythingIsStopped() throws Exception {
    for (int round = 0; round < 10; round++) {
      IndexDataset dataset = new IndexDataset(4000).sleepingUpTo(300);
      DataLoader loader =
          new DataLoader(
              dataset,
              LoaderOptions.builder()
                  .batchSize(4)
                  .numWorkers(3)
                  .prefetchFactor(2)
                  .name("closers-" + round)
                  .build());
      BatchIterator it = loader.epoch(0).iterator();
      it.next();
      int closers = 6;
      CyclicBarrier start = new CyclicBarrier(closers);
      List<String> afterClose = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < closers; c++) {
        Thread thread =
            new Thread(
                () -> {
                  try {
                    start.await();
                    loader.close();
                    String state =
                        "slots out "
                            + loader.slotsOut()
                            + ", threads "
                            + LoaderLeaks.threadsOf(loader.name());
                    synchronized (afterClose) {
                      afterClose.add(state);
                    }
                  } catch (Exception e) {
                    synchronized (afterClose) {
                      afterClose.add(e.toString());
                    }
                  }
                });
        thread.start();
        threads.add(thread);
      }
      for (Thread thread : threads) {
        thread.join(30_000);
      }
      assertThat(afterClose).hasSize(closers).containsOnly("slots out 0, threads []");
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() < deadline).as(what).isTrue();
      Thread.sleep(10);
    }
  }
}
