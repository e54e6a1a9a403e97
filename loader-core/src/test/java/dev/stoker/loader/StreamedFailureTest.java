package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whatever a stream throws or does wrong, on any loading thread, reaches the consumer at the batch
 * it concerns as a {@link BatchLoadException} naming the stage, epoch and batch (and the field and
 * rows where there are some), with the cause kept; the epoch leaves nothing behind and the next one
 * runs. Batches of 10 rows from chunks of 7: batch 3 holds rows 30..39, of which 35..39 come from
 * chunk 5 (rows 35..41).
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedFailureTest {

  /** What a failing copy does instead of writing its rows. */
  interface BadCopy {
    void copy(ColumnTarget target) throws Exception;
  }

  private static DataLoader loader(TestStream stream, int workers) {
    LoaderOptions.Builder b =
        LoaderOptions.builder().batchSize(10).numWorkers(workers).name("fails-" + workers);
    return new DataLoader(stream, (workers > 0 ? b.prefetchFactor(2) : b).build());
  }

  /** A stream of 100 rows in chunks of 7 whose copy of field "label" at row 37 does {@code bad}. */
  private static TestStream failingCopyAtRow37(BadCopy bad) {
    return TestStream.known(100)
        .chunks(7)
        .copying(
            (field, row, target) -> {
              if (field == TestStream.LABEL && row <= 37 && 37 < row + target.rows()) {
                bad.copy(target);
                return true;
              }
              return false;
            });
  }

  /** Runs epoch 0, expecting it to fail after {@code batchesBefore} batches. */
  private static BatchLoadException failure(DataLoader loader, int batchesBefore) {
    List<Integer> seen = new ArrayList<>();
    BatchLoadException failure =
        catchThrowableOfType(
            BatchLoadException.class,
            () -> {
              for (Batch batch : loader.epoch(0)) {
                StreamedRows.rows(batch);
                seen.add(batch.index());
              }
            });
    assertThat(failure).as("the epoch's failure").isNotNull();
    assertThat(seen).as("batches before the failure").hasSize(batchesBefore);
    return failure;
  }

  /** Nothing of the failed epoch is left, and the next epoch, with a healed stream, runs. */
  private static void assertRecovers(DataLoader loader, TestStream stream) {
    assertThat(loader.slotsOut()).isZero();
    stream.awaitStreamsClosed();
    assertThat(stream.chunksClosed.get()).isEqualTo(stream.chunksMade.get());
    stream
        .copying((field, row, target) -> false)
        .onNext(i -> {})
        .negativeRowsAt(-1)
        .failingOpen(null);
    assertThat(StreamedRows.Epoch.of(loader.epoch(1)).labels())
        .containsExactlyElementsOf(StreamedRows.range(100));
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldDeliverAnExceptionOfACopyAtItsBatchNamingFieldAndRows(int workers) {
    IOException cause = new IOException("label 37 is unreadable");
    TestStream stream =
        failingCopyAtRow37(
            target -> {
              throw cause;
            });
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessage(
            "loader 'fails-"
                + workers
                + "' epoch 0 batch 3 (fill): "
                + "copying field 'label' of stream rows 35..39: java.io.IOException: label 37 is "
                + "unreadable")
        .hasCause(cause);
    assertThat(failure.stage()).isEqualTo(Stage.FILL);
    assertThat(failure.epoch()).isZero();
    assertThat(failure.batch()).isEqualTo(3);
    assertThat(failure.sampleIndex()).isEqualTo(35);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldDeliverAnErrorOfACopyAtItsBatch(int workers) {
    StackOverflowError cause = new StackOverflowError("decoder recursed");
    TestStream stream =
        failingCopyAtRow37(
            target -> {
              throw cause;
            });
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessageEndingWith(
            "epoch 0 batch 3 (fill): copying field 'label' of "
                + "stream rows 35..39: java.lang.StackOverflowError: decoder recursed")
        .hasCause(cause);
    assertThat(failure.batch()).isEqualTo(3);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 3})
  void shouldFailACopyThatWritesTooFewBytes(int workers) {
    TestStream stream =
        failingCopyAtRow37(
            target -> {
              for (int i = 0; i < target.rows() - 1; i++) {
                target.putLong(i);
              }
            });
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessageEndingWith(
            "epoch 0 batch 3 (fill): field 'label' of stream "
                + "rows 35..39: the chunk wrote 32 of 40 bytes (expected: all of them, 8 per row)");
    assertThat(failure.batch()).isEqualTo(3);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 3})
  void shouldFailACopyThatWritesTooManyBytes(int workers) {
    TestStream stream = failingCopyAtRow37(target -> target.putLongs(new long[6], 0, 6));
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessageEndingWith(
            "epoch 0 batch 3 (fill): copying field 'label' of "
                + "stream rows 35..39: java.lang.IllegalArgumentException: field 'label': a chunk wrote "
                + "48 more bytes with 40 of 40 left for 5 rows (expected: exactly 8 bytes per row)")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 3})
  void shouldFailACopyOfValuesOfTheWrongDtype(int workers) {
    TestStream stream = failingCopyAtRow37(target -> target.putInts(new int[10], 0, 10));
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessageEndingWith(
            "epoch 0 batch 3 (fill): copying field 'label' of "
                + "stream rows 35..39: java.lang.IllegalArgumentException: field 'label' is int64[]: a "
                + "chunk wrote int32 values (expected: the field's dtype)");
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldDeliverAnExceptionOfNextAtTheFirstBatchMissingItsRows(int workers) {
    IOException cause = new IOException("row group 5 is corrupt");
    TestStream stream = TestStream.known(100).chunks(7).failingNext(5, cause);
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessageStartingWith(
            "loader 'fails-"
                + workers
                + "' epoch 0 batch 3 "
                + "(fill): reading the stream for row 35: ")
        .hasMessageContaining("row group 5 is corrupt")
        .hasRootCause(cause);
    assertThat(failure.stage()).isEqualTo(Stage.FILL);
    assertThat(failure.sampleIndex()).isEqualTo(35);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldDeliverAnErrorOfNextAtTheFirstBatchMissingItsRows(int workers) {
    OutOfMemoryError cause = new OutOfMemoryError("decompression buffer");
    TestStream stream = TestStream.known(100).chunks(7).failingNext(5, cause);
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessageStartingWith(
            "loader 'fails-"
                + workers
                + "' epoch 0 batch 3 "
                + "(fill): reading the stream for row 35: ")
        .hasRootCause(cause);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {1, 3})
  void shouldNotPullAgainFromAStreamWhoseNextFailed(int workers) {
    AtomicInteger asks = new AtomicInteger();
    TestStream stream =
        TestStream.known(100)
            .chunks(7)
            .onNext(
                i -> {
                  if (i == 5 && asks.incrementAndGet() == 1) {
                    throw new IOException("lost its place in row group 5");
                  }
                });
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder().batchSize(10).numWorkers(workers).prefetchFactor(4).build());

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure).hasRootCauseMessage("lost its place in row group 5");
    stream.awaitStreamsClosed();
    assertThat(asks).as("calls of next() for chunk 5").hasValue(1);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldFailTheBatchOfAChunkWithNegativeRowsAndCloseThatChunk(int workers) {
    TestStream stream = TestStream.known(100).chunks(7).negativeRowsAt(3);
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 2);

    assertThat(failure)
        .hasMessageStartingWith(
            "loader 'fails-"
                + workers
                + "' epoch 0 batch 2 "
                + "(fill): reading the stream for row 21: ")
        .hasMessageContaining(
            "chunk 3 of the stream (after 21 rows) has -3 rows (expected: " + ">= 0)");
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 3})
  void shouldFailTheBatchOfAChunkWhoseRowsThrowsAndCloseThatChunk(int workers) {
    IllegalStateException cause = new IllegalStateException("vector not loaded");
    TestStream stream = TestStream.known(100).chunks(7).failingRowsAt(3, cause);
    DataLoader loader = loader(stream, workers);

    BatchLoadException failure = failure(loader, 2);

    assertThat(failure)
        .hasMessageStartingWith(
            "loader 'fails-"
                + workers
                + "' epoch 0 batch 2 "
                + "(fill): reading the stream for row 21: ")
        .hasRootCause(cause);
    assertRecovers(loader, stream);
  }

  @ParameterizedTest(name = "persistentWorkers={0}")
  @ValueSource(booleans = {false, true})
  void shouldFailOpeningAnEpochWhoseStreamFailsToOpenLeavingNothingRunning(boolean persistent) {
    IOException cause = new IOException("no such file: part-00007.parquet");
    TestStream stream = TestStream.known(100).failingOpen(cause);
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(2)
                .persistentWorkers(persistent)
                .name("opens-" + persistent)
                .build());

    assertThatThrownBy(() -> loader.epoch(0).iterator())
        .isInstanceOf(BatchLoadException.class)
        .hasMessage(
            "loader 'opens-"
                + persistent
                + "' epoch 0 batch 0 (open): opening the "
                + "epoch's source failed: java.io.IOException: no such file: part-00007.parquet")
        .hasCause(cause)
        .satisfies(e -> assertThat(((BatchLoadException) e).stage()).isEqualTo(Stage.OPEN));

    assertThat(LoaderLeaks.threadsOf(loader.name())).as("threads started").isEmpty();
    assertThat(loader.slotsOut()).isZero();
    assertRecovers(loader, stream);
  }

  @Test
  void shouldFailOpeningAnEpochWhoseStreamThrowsAnError() {
    NoClassDefFoundError cause = new NoClassDefFoundError("org/apache/parquet/Reader");
    TestStream stream = TestStream.known(100).failingOpen(cause);
    DataLoader loader = loader(stream, 1);

    assertThatThrownBy(() -> loader.epoch(0).iterator())
        .isInstanceOf(BatchLoadException.class)
        .hasMessageEndingWith(
            "epoch 0 batch 0 (open): opening the epoch's source failed: "
                + "java.lang.NoClassDefFoundError: org/apache/parquet/Reader")
        .hasCause(cause);
    assertRecovers(loader, stream);
  }

  @Test
  void shouldFailOpeningAnEpochWhoseStreamIsNull() {
    TestStream stream = TestStream.known(100).openingNull();
    DataLoader loader = loader(stream, 0);

    assertThatThrownBy(() -> loader.epoch(4).iterator())
        .isInstanceOf(BatchLoadException.class)
        .hasMessageEndingWith(
            "epoch 4 batch 0 (open): opening the epoch's source failed: "
                + "java.lang.IllegalStateException: open(): null (expected: a stream of epoch 4)");
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "rowCount={0}")
  @ValueSource(longs = {-2, Long.MIN_VALUE})
  void shouldRefuseARowCountBelowUnknownWhenTheLoaderIsBuilt(long rowCount) {
    TestStream stream = new TestStream(rowCount, 10);

    assertThatThrownBy(() -> new DataLoader(stream, LoaderOptions.builder().batchSize(4).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rowCount(): " + rowCount + " (expected: >= 0, or -1 when unknown)");
    assertThat(stream.streamsOpened).hasValue(0);
  }

  @Test
  void shouldRefuseARowCountOfMoreBatchesThanAnEpochCanHold() {
    TestStream stream = new TestStream(Long.MAX_VALUE / 2, 0);

    assertThatThrownBy(() -> new DataLoader(stream, LoaderOptions.builder().batchSize(4).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("rowCount(): " + Long.MAX_VALUE / 2 + " rows make ")
        .hasMessageEndingWith("raise batchSize)");
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1}")
  @CsvSource({"0,false", "0,true", "2,false", "2,true"})
  void shouldDeliverAFailureOfAStreamOfUnknownLengthAtItsBatch(int workers, boolean dropLast) {
    StackOverflowError cause = new StackOverflowError("footer");
    TestStream stream = TestStream.unknown(100).chunks(7).failingNext(5, cause);
    LoaderOptions.Builder b =
        LoaderOptions.builder().batchSize(10).numWorkers(workers).dropLast(dropLast);
    DataLoader loader = new DataLoader(stream, (workers > 0 ? b.prefetchFactor(2) : b).build());

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessageStartingWith("loader '" + loader.name() + "' epoch 0 batch 3 " + "(fill): ")
        .hasMessageContaining("reading the stream for row 3")
        .hasRootCause(cause);
    assertThat(failure.batch()).isEqualTo(3);
    assertThat(loader.slotsOut()).isZero();
    stream.awaitStreamsClosed();
    stream.onNext(i -> {});
    assertThat(StreamedRows.Epoch.of(loader.epoch(1)).labels())
        .containsExactlyElementsOf(StreamedRows.range(100));
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldTimeOutNamingTheStreamRowAWorkerWaitsForAndCloseCleanly() {
    CountDownLatch release = new CountDownLatch(1);
    TestStream stream =
        TestStream.known(100)
            .chunks(7)
            .onNext(
                i -> {
                  if (i == 6) {
                    release.await(20, TimeUnit.SECONDS); // a reader stuck on a slow file system
                  }
                });
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(2)
                .timeout(Duration.ofMillis(300))
                .name("slow")
                .build());
    List<Integer> seen = new ArrayList<>();

    assertThatThrownBy(
            () -> {
              for (Batch batch : loader.epoch(0)) {
                seen.add(batch.index());
              }
            })
        .isInstanceOf(LoaderTimeoutException.class)
        .hasMessageContaining(
            "loader 'slow' epoch 0: batch 4 of 10 did not come within "
                + "timeout=300 ms; it is slow-e0-worker-0's to fill: slow-e0-worker-0: filling batch "
                + "4, row 2 of 10 (sample 42)");

    release.countDown();
    assertThat(seen).containsExactly(0, 1, 2, 3);
    assertThat(loader.slotsOut()).isZero();
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldTimeOutInHasNextWhenAStreamOfUnknownLengthIsStuck() {
    CountDownLatch release = new CountDownLatch(1);
    TestStream stream =
        TestStream.unknown(100)
            .chunks(7)
            .onNext(
                i -> {
                  if (i == 6) {
                    release.await(10, TimeUnit.SECONDS);
                  }
                });
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(2)
                .dropLast(true)
                .timeout(Duration.ofMillis(300))
                .build());

    try {
      assertTimeoutPreemptively(
          Duration.ofSeconds(3),
          () ->
              assertThatThrownBy(
                      () -> {
                        for (Batch batch : loader.epoch(0)) {
                          StreamedRows.rows(batch);
                        }
                      })
                  .isInstanceOf(LoaderTimeoutException.class));
    } finally {
      release.countDown();
    }
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldNameTheBatchOnceForAFailureThatHasNextMeets() {
    IOException cause = new IOException("row group 5 is corrupt");
    TestStream stream = TestStream.unknown(100).chunks(7).failingNext(5, cause);
    DataLoader loader =
        new DataLoader(
            stream, LoaderOptions.builder().batchSize(10).dropLast(true).name("ahead").build());

    BatchLoadException failure = failure(loader, 3);

    assertThat(failure)
        .hasMessage(
            "loader 'ahead' epoch 0 batch 3 (fill): reading the stream "
                + "for row 35: java.io.IOException: row group 5 is corrupt")
        .hasCause(cause);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldFinishTheEpochWhenClosingAChunkFails(int workers) {
    TestStream stream = TestStream.known(100).chunks(7).failingToCloseChunk(4);
    DataLoader loader = loader(stream, workers);

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(100));
    stream.closeAndCheck(loader);
  }
}
