package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** A stream whose length is known only at its end: hasNext() finds the end in the stream. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedUnknownRowsTest {

  private static LoaderOptions options(int batchSize, int workers, boolean dropLast) {
    LoaderOptions.Builder b =
        LoaderOptions.builder().batchSize(batchSize).numWorkers(workers).dropLast(dropLast);
    return (workers > 0 ? b.prefetchFactor(2) : b).build();
  }

  static Stream<Arguments> endings() {
    List<Arguments> all = new ArrayList<>();
    for (int workers : new int[] {0, 1, 3}) {
      for (boolean dropLast : new boolean[] {true, false}) {
        for (int rows : new int[] {0, 3, 10, 97, 100}) {
          all.add(Arguments.of(workers, dropLast, rows));
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1} rows={2}")
  @MethodSource("endings")
  void shouldTellTheEndOfTheStreamWithHasNext(int workers, boolean dropLast, int rows) {
    TestStream stream = TestStream.unknown(rows).chunks(7);
    DataLoader loader = new DataLoader(stream, options(10, workers, dropLast));
    int full = rows / 10;
    int expected = dropLast || rows % 10 == 0 ? full : full + 1;
    List<Integer> sizes = new ArrayList<>();
    List<Long> labels = new ArrayList<>();

    try (BatchIterator it = loader.epoch(0).iterator()) {
      assertThat(it.batchCount()).isEqualTo(-1);
      while (it.hasNext()) {
        assertThat(it.hasNext()).as("asking twice changes nothing").isTrue();
        Batch batch = it.next();
        sizes.add(batch.size());
        for (long label : StreamedRows.rows(batch)) {
          labels.add(label);
        }
      }
      assertThat(it.hasNext()).isFalse();
      assertThatThrownBy(it::next)
          .isInstanceOf(NoSuchElementException.class)
          .hasMessage("epoch 0 of loader '" + loader.name() + "' has no batch after " + expected);
    }

    assertThat(sizes).hasSize(expected);
    assertThat(sizes.subList(0, full)).allMatch(size -> size == 10);
    assertThat(labels).containsExactlyElementsOf(StreamedRows.range(dropLast ? full * 10L : rows));
    assertThat(loader.slotsOut()).isZero();
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldNotKnowTheBatchCountNorTheDroppedRowsOfAStreamOfUnknownLength() {
    TestStream stream = TestStream.unknown(50);
    DataLoader loader = new DataLoader(stream, options(8, 0, true));

    assertThat(loader.batchesPerEpoch()).isEqualTo(-1);
    assertThat(loader.droppedRows()).isEqualTo(-1);
    assertThat(loader.droppedRowsAllRanks()).isEqualTo(-1);
    assertThat(loader.toString()).contains("a stream,");
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1}")
  @CsvSource({"0,true", "0,false", "2,true", "2,false"})
  void shouldYieldNothingFromAnEmptyStreamAndCloseIt(int workers, boolean dropLast) {
    TestStream stream = TestStream.unknown(0);
    DataLoader loader = new DataLoader(stream, options(8, workers, dropLast));

    for (int e = 0; e < 2; e++) {
      BatchIterator it = loader.epoch(e).iterator();
      assertThat(it.hasNext()).isFalse();
      stream.awaitStreamsClosed();
      assertThat(stream.streamsClosed).as("the stream, once its end is known").hasValue(e + 1);
    }
    assertThat(stream.chunksMade).hasValue(0);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "1", "3"})
  void shouldYieldOneShortBatchForFewerRowsThanABatchWithoutDropLast(int workers) {
    TestStream stream = TestStream.unknown(5).chunks(2);
    DataLoader loader = new DataLoader(stream, options(8, workers, false));

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.sizes()).containsExactly(5);
    assertThat(epoch.labels()).containsExactly(0L, 1L, 2L, 3L, 4L);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "1", "3"})
  void shouldYieldNoBatchForFewerRowsThanABatchWithDropLast(int workers) {
    TestStream stream = TestStream.unknown(5).chunks(2);
    DataLoader loader = new DataLoader(stream, options(8, workers, true));

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.sizes()).isEmpty();
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1}")
  @CsvSource({"0,true", "0,false", "1,true", "3,false", "3,true"})
  void shouldSkipChunksWithoutRowsAnywhereInTheStream(int workers, boolean dropLast) {
    TestStream stream = TestStream.unknown(95).chunks(i -> i % 3 == 0 ? 0 : 4);
    DataLoader loader = new DataLoader(stream, options(10, workers, dropLast));

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(dropLast ? 90 : 95));
    assertThat(stream.chunksMade.get()).isGreaterThan(30);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1}")
  @CsvSource({"0,true", "0,false", "2,true", "2,false"})
  void shouldIterateWithNextAloneUntilTheEnd(int workers, boolean dropLast) {
    TestStream stream = TestStream.unknown(35).chunks(6);
    DataLoader loader = new DataLoader(stream, options(10, workers, dropLast));
    int expected = dropLast ? 3 : 4;

    try (BatchIterator it = loader.epoch(0).iterator()) {
      for (int i = 0; i < expected; i++) {
        assertThat(it.next().index()).isEqualTo(i);
      }
      assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
    }
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldKeepTheInterruptOfAConsumerWaitingInHasNext() throws Exception {
    CountDownLatch pulling = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    TestStream stream =
        TestStream.unknown(100)
            .chunks(5)
            .onNext(
                i -> {
                  if (i == 4) { // rows 20..24: batch 2, pulled by its worker or by hasNext
                    pulling.countDown();
                    goOn.await(20, TimeUnit.SECONDS);
                  }
                });
    DataLoader loader = new DataLoader(stream, options(10, 1, false));
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean interrupted = new AtomicBoolean();
    Thread consumer =
        new Thread(
            () -> {
              try (BatchIterator it = loader.epoch(0).iterator()) {
                it.next();
                it.next();
                assertThat(it.hasNext()).as("a failure to come").isTrue();
                interrupted.set(Thread.currentThread().isInterrupted());
                it.next();
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "stream-consumer");
    consumer.start();
    assertThat(pulling.await(20, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(100); // the consumer now waits in hasNext for batch 2's first row

    consumer.interrupt();
    consumer.join(20_000);
    goOn.countDown();

    assertThat(failure.get())
        .as("as next() does when interrupted")
        .isInstanceOf(java.util.concurrent.CancellationException.class)
        .hasMessageContaining("interrupted while waiting for batch 2");
    assertThat(interrupted).as("the interrupt flag, kept").isTrue();
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "2"})
  void shouldRunEpochAfterEpochWithTheirOwnStreams(int workers) {
    TestStream stream = TestStream.unknown(64).randomChunks(3, 1, 5, 9, 40);
    DataLoader loader = new DataLoader(stream, options(16, workers, false));

    for (int e = 0; e < 4; e++) {
      assertThat(StreamedRows.Epoch.of(loader.epoch(e)).sizes()).containsExactly(16, 16, 16, 16);
    }

    assertThat(stream.requests).extracting(StreamRequest::epoch).containsExactly(0, 1, 2, 3);
    stream.closeAndCheck(loader);
  }
}
