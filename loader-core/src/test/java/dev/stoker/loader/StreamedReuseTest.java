package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Streams that reuse their memory, as Spark's vectorized Parquet reader reuses its batch: {@code
 * next()} waits until the chunk before is closed. The loader must copy a chunk's rows and close it
 * before it asks for the next one, whatever the workers, batch and chunk sizes.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedReuseTest {

  static Stream<Arguments> knownRows() {
    List<Arguments> all = new ArrayList<>();
    for (int workers = 0; workers <= 3; workers++) {
      for (boolean dropLast : new boolean[] {true, false}) {
        for (int chunk : new int[] {1, 7, 64}) {
          all.add(Arguments.of(workers, dropLast, chunk));
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1} chunks of {2}")
  @MethodSource("knownRows")
  void shouldLoadAKnownStreamThatReusesItsMemory(int workers, boolean dropLast, int chunk) {
    TestStream stream = TestStream.known(1003).chunks(chunk).reusing();
    DataLoader loader = new DataLoader(stream, options(10, workers, dropLast));

    for (int e = 0; e < 2; e++) {
      StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(e));
      assertThat(epoch.labels())
          .containsExactlyElementsOf(StreamedRows.range(dropLast ? 1000 : 1003));
      assertThat(epoch.sizes()).hasSize(loader.batchesPerEpoch());
    }
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} batchSize={1}")
  @CsvSource({"0,4", "1,4", "2,4", "3,4", "0,1", "3,1", "2,9", "3,64"})
  void shouldDropATailSpreadOverSeveralChunksOfAReusingStream(int workers, int batchSize) {
    TestStream stream = TestStream.known(batchSize * 5L + batchSize - 1).chunks(1).reusing();
    DataLoader loader = new DataLoader(stream, options(batchSize, workers, true));

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.sizes()).hasSize(5).containsOnly(batchSize);
    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(batchSize * 5L));
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} chunks of {1}")
  @CsvSource({"0,1", "0,7", "1,7", "2,3", "3,64"})
  void shouldLoadAReusingStreamOfUnknownLengthKeepingTheShortLastBatch(int workers, int chunk) {
    TestStream stream = TestStream.unknown(1003).chunks(chunk).reusing();
    DataLoader loader = new DataLoader(stream, options(10, workers, false));

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.sizes()).hasSize(101).endsWith(10, 3);
    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(1003));
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} chunks of {1}")
  @CsvSource({"1,1", "1,7", "2,3", "3,7", "3,64"})
  void shouldLoadAReusingStreamOfUnknownLengthDroppingTheTail(int workers, int chunk) {
    TestStream stream = TestStream.unknown(1003).chunks(chunk).reusing();
    DataLoader loader = new DataLoader(stream, options(10, workers, true));

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.sizes()).hasSize(100).containsOnly(10);
    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(1000));
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} known={1}")
  @CsvSource({"1,true", "2,true", "3,true", "1,false", "3,false"})
  void shouldLoadAReusingStreamWithNoMoreSlotsThanTheWorkersNeed(int workers, boolean known) {
    TestStream stream =
        (known ? TestStream.known(503) : TestStream.unknown(503))
            .chunks(3)
            .reusing()
            .sleepingUpTo(100);
    int slotBytes = new BatchLayout(TestStream.SCHEMA, 10).slotBytes();
    // One per worker and one for the consumer; without a known length one more, which the
    // consumer takes to tell whether another batch comes.
    int needed = workers + 1 + (known ? 0 : 1);
    DataLoader loader =
        new DataLoader(
            stream,
            LoaderOptions.builder()
                .batchSize(10)
                .numWorkers(workers)
                .prefetchFactor(4)
                .dropLast(true)
                .maxHostBytes((long) needed * slotBytes)
                .build());

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(loader.slotsAllocated()).isLessThanOrEqualTo(needed);
    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(500));
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0} dropLast={1}")
  @CsvSource({"0,false", "1,true", "1,false", "3,true", "3,false"})
  void shouldDeliverAFailedCopyOfAReusingStreamOfUnknownLengthAtItsBatch(
      int workers, boolean dropLast) {
    IOException cause = new IOException("page of row 31 is corrupt");
    TestStream stream =
        TestStream.unknown(100)
            .chunks(7)
            .reusing()
            .copying(
                (field, row, target) -> {
                  if (row <= 31 && 31 < row + target.rows()) {
                    throw cause;
                  }
                  return false;
                });
    DataLoader loader = new DataLoader(stream, options(10, workers, dropLast));
    List<Integer> seen = new ArrayList<>();

    BatchLoadException failure =
        catchThrowableOfType(
            BatchLoadException.class,
            () -> {
              for (Batch batch : loader.epoch(0)) {
                seen.add(batch.index());
              }
            });

    assertThat(seen).containsExactly(0, 1, 2);
    assertThat(failure.batch()).isEqualTo(3);
    assertThat(failure)
        .hasMessageContaining("copying field 'x' of stream rows 30..34")
        .hasRootCause(cause);
    stream.awaitStreamsClosed();
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "chunks of {0}")
  @CsvSource({"1", "7"})
  void shouldLoadAReusingStreamOfUnknownLengthWithDropLastInTheCallersThread(int chunk) {
    TestStream stream = TestStream.unknown(1003).chunks(chunk).reusing();
    DataLoader loader = new DataLoader(stream, options(10, 0, true));

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.sizes()).hasSize(100).containsOnly(10);
    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(1000));
    stream.closeAndCheck(loader);
  }

  private static LoaderOptions options(int batchSize, int workers, boolean dropLast) {
    LoaderOptions.Builder b =
        LoaderOptions.builder().batchSize(batchSize).numWorkers(workers).dropLast(dropLast);
    return (workers > 0 ? b.prefetchFactor(3) : b).build();
  }
}
