package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A stream that does not keep to its declared row count fails the batch where that shows: one that
 * ends early at the batch whose rows are missing, one that runs long at the last batch. The epoch
 * then leaves nothing behind and the next one runs.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedLengthTest {

  private static DataLoader loader(TestStream stream, int workers, boolean dropLast) {
    LoaderOptions.Builder b =
        LoaderOptions.builder()
            .batchSize(10)
            .numWorkers(workers)
            .dropLast(dropLast)
            .name("length-" + workers + "-" + dropLast);
    return new DataLoader(stream, (workers > 0 ? b.prefetchFactor(3) : b).build());
  }

  /** Runs epoch {@code epoch}, collecting the batches delivered before the failure it returns. */
  private static BatchLoadException failure(DataLoader loader, int epoch, List<Integer> seen) {
    return catchThrowableOfType(
        BatchLoadException.class,
        () -> {
          for (Batch batch : loader.epoch(epoch)) {
            StreamedRows.rows(batch);
            seen.add(batch.index());
          }
        });
  }

  private static void assertNothingLeftAndUsable(DataLoader loader, TestStream stream, long rows) {
    assertThat(loader.slotsOut()).as("slots out after the failed epoch").isZero();
    stream.awaitStreamsClosed();
    assertThat(stream.streamsClosed.get()).isEqualTo(stream.streamsOpened.get());
    assertThat(stream.chunksClosed.get()).isEqualTo(stream.chunksMade.get());
    stream.yielding(rows);
    StreamedRows.Epoch next = StreamedRows.Epoch.of(loader.epoch(1));
    assertThat(next.sizes()).hasSize(loader.batchesPerEpoch());
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1} chunks of {2}")
  @CsvSource({"0,true,7", "1,true,7", "3,true,7", "0,false,1", "1,false,64", "3,false,3"})
  void shouldFailTheBatchWhoseRowsAreMissingWhenTheStreamEndsEarly(
      int workers, boolean dropLast, int chunk) {
    TestStream stream = new TestStream(100, 57).chunks(chunk);
    DataLoader loader = loader(stream, workers, dropLast);
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure = failure(loader, 0, seen);

    assertThat(seen).containsExactly(0, 1, 2, 3, 4);
    assertThat(failure)
        .hasMessage(
            "loader '"
                + loader.name()
                + "' epoch 0 batch 5 (fill): the "
                + "stream ended after 57 rows (expected: rowCount() = 100 rows)");
    assertThat(failure.stage()).isEqualTo(Stage.FILL);
    assertThat(failure.epoch()).isZero();
    assertThat(failure.batch()).isEqualTo(5);
    assertThat(failure.sampleIndex()).as("the first row missing").isEqualTo(57);
    assertNothingLeftAndUsable(loader, stream, 100);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "1", "3"})
  void shouldFailTheFirstBatchWhenADeclaredStreamIsEmpty(int workers) {
    TestStream stream = new TestStream(30, 0);
    DataLoader loader = loader(stream, workers, true);
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure = failure(loader, 0, seen);

    assertThat(seen).isEmpty();
    assertThat(failure)
        .hasMessageEndingWith(
            "epoch 0 batch 0 (fill): the stream ended after 0 "
                + "rows (expected: rowCount() = 30 rows)");
    assertNothingLeftAndUsable(loader, stream, 30);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "1", "3"})
  void shouldFailTheBatchAfterTheLastRowsWhenTheStreamEndsAtABatchBoundary(int workers) {
    TestStream stream = new TestStream(100, 50).chunks(10);
    DataLoader loader = loader(stream, workers, false);
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure = failure(loader, 0, seen);

    assertThat(seen).containsExactly(0, 1, 2, 3, 4);
    assertThat(failure.batch()).isEqualTo(5);
    assertThat(failure)
        .hasMessageEndingWith(
            "the stream ended after 50 rows (expected: " + "rowCount() = 100 rows)");
    assertNothingLeftAndUsable(loader, stream, 100);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "1", "3"})
  void shouldFailTheLastBatchWhenTheStreamEndsInsideTheDroppedTail(int workers) {
    TestStream stream = new TestStream(105, 102).chunks(4);
    DataLoader loader = loader(stream, workers, true);
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure = failure(loader, 0, seen);

    assertThat(seen).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(failure.batch()).isEqualTo(9);
    assertThat(failure)
        .hasMessageEndingWith(
            "epoch 0 batch 9 (fill): the stream ended after 102 "
                + "rows, in the 5 rows dropLast drops (expected: rowCount() = 105 rows)");
    assertNothingLeftAndUsable(loader, stream, 105);
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1} rowCount={2}")
  @CsvSource({
    "0,true,100",
    "1,true,100",
    "3,true,100",
    "0,true,105",
    "3,true,105",
    "0,false,105",
    "1,false,105",
    "3,false,100"
  })
  void shouldFailTheLastBatchWhenTheStreamRunsLong(int workers, boolean dropLast, int rowCount) {
    TestStream stream = new TestStream(rowCount, 120).chunks(6);
    DataLoader loader = loader(stream, workers, dropLast);
    List<Integer> seen = new ArrayList<>();
    int last = loader.batchesPerEpoch() - 1;

    BatchLoadException failure = failure(loader, 0, seen);

    assertThat(seen).hasSize(last);
    assertThat(failure)
        .hasMessage(
            "loader '"
                + loader.name()
                + "' epoch 0 batch "
                + last
                + " (fill): the stream has more than rowCount() = "
                + rowCount
                + " rows (expected: "
                + "exactly that many)");
    assertThat(failure.batch()).isEqualTo(last);
    assertThat(failure.sampleIndex()).as("the first row too many").isEqualTo(rowCount);
    assertNothingLeftAndUsable(loader, stream, rowCount);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @CsvSource({"0", "2"})
  void shouldFailTheLastBatchWhenTheStreamRunsLongByOneRowInAChunkOfItsOwn(int workers) {
    TestStream stream = new TestStream(40, 41).chunks(i -> i < 4 ? 10 : 1);
    DataLoader loader = loader(stream, workers, true);
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure = failure(loader, 0, seen);

    assertThat(seen).containsExactly(0, 1, 2);
    assertThat(failure.batch()).isEqualTo(3);
    assertThat(failure).hasMessageContaining("more than rowCount() = 40 rows");
    assertNothingLeftAndUsable(loader, stream, 40);
  }
}
