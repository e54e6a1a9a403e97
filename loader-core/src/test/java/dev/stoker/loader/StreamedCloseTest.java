package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every chunk is closed exactly once, after its last copy, and every epoch's stream exactly once,
 * after its last chunk and when no thread is in {@code next()}: at the end of the epoch, on an
 * early exit, on a failure, and when the loader is closed from another thread mid-stream.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedCloseTest {

  private static LoaderOptions options(int workers) {
    LoaderOptions.Builder b = LoaderOptions.builder().batchSize(10).numWorkers(workers);
    return (workers > 0 ? b.prefetchFactor(2) : b).build();
  }

  private static TestStream stream(boolean reuse) {
    TestStream stream = TestStream.known(100).chunks(7);
    return reuse ? stream.reusing() : stream;
  }

  @ParameterizedTest(name = "numWorkers={0} reusing={1}")
  @CsvSource({"0,false", "1,false", "3,false", "0,true", "1,true", "3,true"})
  void shouldCloseEveryChunkAndTheStreamOnceAtTheEndOfEachEpoch(int workers, boolean reuse) {
    TestStream stream = stream(reuse);
    DataLoader loader = new DataLoader(stream, options(workers));

    for (int e = 0; e < 3; e++) {
      StreamedRows.Epoch.of(loader.epoch(e));
    }

    assertThat(stream.chunksMade).as("15 chunks of 7 rows per epoch").hasValue(45);
    stream.awaitStreamsClosed();
    assertThat(stream.chunksClosed).hasValue(45);
    assertThat(stream.streamsClosed).hasValue(3);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} reusing={1} after {2} batches")
  @CsvSource({
    "0,false,0",
    "0,true,1",
    "1,false,5",
    "1,true,0",
    "3,false,1",
    "3,true,5",
    "3,true,9"
  })
  void shouldCloseEverythingWhenTheLoopStopsEarly(int workers, boolean reuse, int taken) {
    TestStream stream = stream(reuse).sleepingUpTo(200);
    DataLoader loader = new DataLoader(stream, options(workers));

    try (BatchIterator it = loader.epoch(0).iterator()) {
      for (int i = 0; i < taken; i++) {
        StreamedRows.rows(it.next());
      }
    }

    assertThat(loader.slotsOut()).isZero();
    stream.awaitStreamsClosed();
    assertThat(stream.streamsClosed).hasValue(1);
    assertThat(stream.chunksClosed.get()).isEqualTo(stream.chunksMade.get());
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldCloseTheStreamOfAnEpochLeftByABreakWhenTheNextStarts(int workers) {
    TestStream stream = stream(true);
    DataLoader loader = new DataLoader(stream, options(workers));

    for (Batch batch : loader.epoch(0)) {
      if (batch.index() == 2) {
        break;
      }
    }
    assertThat(StreamedRows.Epoch.of(loader.epoch(1)).labels())
        .containsExactlyElementsOf(StreamedRows.range(100));

    assertThat(stream.streamsOpened).hasValue(2);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} reusing={1}")
  @CsvSource({"1,false", "3,false", "1,true", "3,true"})
  void shouldCloseEverythingWhenTheLoaderIsClosedFromAnotherThreadMidStream(
      int workers, boolean reuse) throws Exception {
    TestStream stream =
        stream(reuse)
            .copying(
                (field, row, target) -> {
                  if (row >= 30) {
                    Thread.sleep(2); // slow from batch 3 on: the close comes while workers copy
                  }
                  return false;
                });
    DataLoader loader = new DataLoader(stream, options(workers));
    CountDownLatch twoBatches = new CountDownLatch(2);
    AtomicReference<Throwable> consumerEnd = new AtomicReference<>();
    Thread consumer =
        new Thread(
            () -> {
              try {
                for (Batch batch : loader.epoch(0)) {
                  StreamedRows.rows(batch);
                  twoBatches.countDown();
                }
              } catch (Throwable t) {
                consumerEnd.set(t);
              }
            },
            "stream-consumer");
    consumer.start();

    assertThat(twoBatches.await(20, TimeUnit.SECONDS)).isTrue();
    loader.close();
    consumer.join(20_000);

    assertThat(consumer.isAlive()).isFalse();
    assertThat(consumerEnd.get())
        .as("the loop ends, or its next() is cancelled")
        .satisfiesAnyOf(
            end -> assertThat(end).isNull(),
            end -> assertThat(end).isInstanceOf(CancellationException.class));
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldCloseNoChunkUnderACopyInTheCallersThreadWhenClosedFromAnotherThread()
      throws Exception {
    CountDownLatch copying = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    TestStream stream =
        TestStream.known(100)
            .chunks(7)
            .copying(
                (field, row, target) -> {
                  if (row <= 55 && 55 < row + target.rows() && copying.getCount() > 0) {
                    copying.countDown();
                    goOn.await(20, TimeUnit.SECONDS);
                  }
                  return false;
                });
    DataLoader loader = new DataLoader(stream, options(0));
    AtomicReference<Throwable> consumerEnd = new AtomicReference<>();
    Thread consumer =
        new Thread(
            () -> {
              try {
                for (Batch batch : loader.epoch(0)) {
                  StreamedRows.rows(batch);
                }
              } catch (Throwable t) {
                consumerEnd.set(t);
              }
            },
            "stream-consumer");
    consumer.start();
    assertThat(copying.await(20, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(loader::close, "stream-closer");
    closer.start();
    Thread.sleep(200); // the close is under way while the copy goes on
    goOn.countDown();
    closer.join(20_000);
    consumer.join(20_000);

    assertThat(consumerEnd.get()).isInstanceOf(CancellationException.class);
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldReturnFromACloseWhileTheCallersThreadCopiesAndCancelItsNextAfterward()
      throws Exception {
    CountDownLatch copying = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    TestStream stream =
        TestStream.known(100)
            .chunks(7)
            .copying(
                (field, row, target) -> {
                  if (row <= 55 && 55 < row + target.rows() && copying.getCount() > 0) {
                    copying.countDown();
                    while (!awaitUninterruptibly(goOn)) {
                      Thread.onSpinWait();
                    }
                  }
                  return false;
                });
    DataLoader loader = new DataLoader(stream, options(0));
    AtomicReference<Throwable> consumerEnd = new AtomicReference<>();
    Thread consumer =
        new Thread(
            () -> {
              try {
                for (Batch batch : loader.epoch(0)) {
                  StreamedRows.rows(batch);
                }
              } catch (Throwable t) {
                consumerEnd.set(t);
              }
            },
            "stream-consumer");
    consumer.start();
    assertThat(copying.await(20, TimeUnit.SECONDS)).isTrue();

    try {
      loader.close(); // no false leak error, though the consumer still holds a slot
      assertThat(consumer.isAlive()).as("close did not wait for the copy").isTrue();
      assertThat(stream.streamsClosed).as("not under the copy").hasValue(0);
    } finally {
      goOn.countDown();
    }
    consumer.join(20_000);

    assertThat(consumerEnd.get()).isInstanceOf(CancellationException.class);
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "dropLast={0}")
  @ValueSource(booleans = {false, true})
  void shouldCloseTheStreamOnlyOnceAPullInHasNextReturns(boolean dropLast) throws Exception {
    CountDownLatch pulling = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    TestStream stream =
        TestStream.unknown(100)
            .chunks(7)
            .onNext(
                i -> {
                  if (i == 8) {
                    pulling.countDown();
                    goOn.await(20, TimeUnit.SECONDS);
                  }
                });
    DataLoader loader =
        new DataLoader(stream, LoaderOptions.builder().batchSize(10).dropLast(dropLast).build());
    List<Integer> seen = new ArrayList<>();
    Thread consumer =
        new Thread(
            () -> {
              try {
                for (Batch batch : loader.epoch(0)) {
                  seen.add(batch.index());
                }
              } catch (CancellationException expected) {
                // closed meanwhile
              }
            },
            "stream-consumer");
    consumer.start();
    assertThat(pulling.await(20, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(loader::close, "stream-closer");
    closer.start();
    Thread.sleep(200);
    assertThat(stream.streamsClosed).as("not while a thread is in next()").hasValue(0);
    goOn.countDown();
    closer.join(20_000);
    consumer.join(20_000);

    assertThat(seen.size()).isLessThanOrEqualTo(6);
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {1, 3})
  void shouldInterruptWorkersWaitingInNextAndCloseTheStreamAfterThem(int workers) throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    TestStream stream =
        TestStream.known(100)
            .chunks(7)
            .onNext(
                i -> {
                  if (i == 6) {
                    never.await(); // a reader stuck on a slow file system, until interrupted
                  }
                });
    DataLoader loader = new DataLoader(stream, options(workers));
    BatchIterator it = loader.epoch(0).iterator();
    for (int i = 0; i < 4; i++) {
      StreamedRows.rows(it.next());
    }

    stream.closeAndCheck(loader);
    assertThatThrownBy(it::next).isInstanceOf(CancellationException.class);
  }

  @Test
  void shouldReportAWorkerStuckInNextAndCloseTheStreamWhenItComesBack() throws Exception {
    CountDownLatch stuck = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    TestStream stream =
        TestStream.known(100)
            .chunks(7)
            .onNext(
                i -> {
                  if (i == 3) {
                    stuck.countDown();
                    while (!awaitUninterruptibly(goOn)) {
                      Thread.onSpinWait();
                    }
                  }
                });
    DataLoader loader = new DataLoader(stream, options(1));
    BatchIterator it = loader.epoch(0).iterator();
    it.next();
    assertThat(stuck.await(20, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(loader::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stuck in dataset code");
    assertThat(stream.streamsClosed).as("not under the stuck thread").hasValue(0);
    goOn.countDown();

    stream.awaitStreamsClosed();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!LoaderLeaks.threadsOf(loader.name()).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    stream.closeAndCheck(loader);
  }

  /** Waits for {@code latch} ignoring interrupts; true once it is open. */
  private static boolean awaitUninterruptibly(CountDownLatch latch) {
    try {
      return latch.await(10, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      return false;
    }
  }
}
