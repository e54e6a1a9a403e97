package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A stream of a known row count: exactly the planned batches, its rows in order. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamedKnownRowsTest {

  private static LoaderOptions.Builder options(int batchSize, int numWorkers, int prefetch) {
    LoaderOptions.Builder b = LoaderOptions.builder().batchSize(batchSize).numWorkers(numWorkers);
    return numWorkers > 0 ? b.prefetchFactor(prefetch) : b;
  }

  static Stream<Arguments> workersPrefetchChunks() {
    List<Arguments> all = new ArrayList<>();
    for (int chunk : new int[] {1, 7, 64, 4096}) {
      all.add(Arguments.of(0, 1, chunk));
      for (int workers : new int[] {1, 3}) {
        for (int prefetch = 1; prefetch <= 4; prefetch++) {
          all.add(Arguments.of(workers, prefetch, chunk));
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "numWorkers={0} prefetch={1} chunks of {2}")
  @MethodSource("workersPrefetchChunks")
  void shouldYieldExactlyThePlannedFullBatchesWithDropLast(int workers, int prefetch, int chunk) {
    TestStream stream = TestStream.known(1003).chunks(chunk).sleepingUpTo(workers > 0 ? 20 : 0);
    DataLoader loader =
        new DataLoader(stream, options(10, workers, prefetch).dropLast(true).build());

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(loader.batchesPerEpoch()).isEqualTo(100);
    assertThat(epoch.sizes()).hasSize(100).containsOnly(10);
    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(1000));
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "batchSize={0} numWorkers={1}")
  @CsvSource({"1,0", "3,2", "6,0", "7,1", "8,3", "13,2", "14,0", "64,3", "100,1", "211,2"})
  void shouldStraddleChunksWithEveryBatchSize(int batchSize, int workers) {
    TestStream stream = TestStream.known(1000).chunks(7);
    DataLoader loader =
        new DataLoader(stream, options(batchSize, workers, 2).dropLast(true).build());

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    int batches = 1000 / batchSize;
    assertThat(loader.batchesPerEpoch()).isEqualTo(batches);
    assertThat(epoch.sizes()).hasSize(batches).containsOnly(batchSize);
    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(batches * batchSize));
    assertThat(loader.droppedRows()).isEqualTo(1000 % batchSize);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void shouldYieldTheRowsOfRandomChunkMixes(long seed) {
    int workers = (int) (seed % 4);
    boolean typed = seed % 2 == 0;
    TestStream stream =
        TestStream.known(2000 + seed).randomChunks(seed, 0, 1, 2, 5, 7, 31, 64, 300);
    if (typed) {
      stream.typed();
    }
    DataLoader loader =
        new DataLoader(
            stream,
            options(9 + (int) seed, workers, 1 + (int) seed % 3)
                .dropLast(seed % 3 != 0)
                .persistentWorkers(workers > 0 && seed % 2 == 1)
                .build());
    int batchSize = 9 + (int) seed;
    long rows = 2000 + seed;

    for (int e = 0; e < 2; e++) {
      StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(e));
      long expected = loader.options().dropLast() ? rows / batchSize * batchSize : rows;
      assertThat(epoch.labels())
          .as("epoch %d", e)
          .containsExactlyElementsOf(StreamedRows.range(expected));
      assertThat(epoch.sizes()).hasSize(loader.batchesPerEpoch());
    }
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 1, 3})
  void shouldEndWithAPartialBatchWhoseUnusedRowsAreZeroWithoutDropLast(int workers) {
    TestStream stream = TestStream.known(1003).chunks(64);
    DataLoader loader = new DataLoader(stream, options(10, workers, 2).build());

    for (int e = 0; e < 3; e++) { // slots are reused: the short batch's rows must not be stale
      StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(e));
      assertThat(epoch.sizes()).hasSize(101).startsWith(10, 10).endsWith(10, 3);
      assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(1003));
    }
    assertThat(loader.batchesPerEpoch()).isEqualTo(101);
    assertThat(loader.droppedRows()).isZero();
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldReportTheRowsDropLastDrops() {
    TestStream dropping = TestStream.known(1003);
    TestStream keeping = TestStream.known(1003);
    DataLoader dropLast = new DataLoader(dropping, options(10, 0, 1).dropLast(true).build());
    DataLoader keepLast = new DataLoader(keeping, options(10, 0, 1).build());

    assertThat(dropLast.droppedRows()).isEqualTo(3);
    assertThat(keepLast.droppedRows()).isZero();
    assertThat(dropLast.droppedRowsAllRanks()).as("only the rank knows its rows").isEqualTo(-1);
    dropping.closeAndCheck(dropLast);
    keeping.closeAndCheck(keepLast);
    assertThat(dropping.streamsOpened).as("nothing opened before an epoch").hasValue(0);
  }

  @Test
  void shouldAskEveryEpochForItsStreamWithTheLoaderOrderAndPlacement() {
    TestStream stream = TestStream.known(40);
    DataLoader loader =
        DataLoader.builder(stream)
            .options(
                LoaderOptions.builder().batchSize(8).shuffle(true).seed(42).numWorkers(2).build())
            .placement(Placement.of(2, 4))
            .build();

    loader.forEach(batch -> {});
    loader.forEach(batch -> {});
    loader.epoch(7).forEach(batch -> {});

    assertThat(stream.requests)
        .containsExactly(
            new StreamRequest(0, true, 42, 2, 4),
            new StreamRequest(1, true, 42, 2, 4),
            new StreamRequest(7, true, 42, 2, 4));
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldAskWithoutShuffleForTheWholeStreamByDefault() {
    TestStream stream = TestStream.known(16);
    DataLoader loader = new DataLoader(stream, options(8, 0, 1).build());

    loader.epoch(3).forEach(batch -> {});

    assertThat(stream.requests)
        .containsExactly(new StreamRequest(3, false, loader.options().seed(), 0, 1));
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "rowCount={0}")
  @ValueSource(ints = {0, 1, 9})
  void shouldYieldNoBatchWhenTheRowsMakeNoFullBatchWithDropLast(int rows) {
    TestStream stream = TestStream.known(rows).chunks(4);
    DataLoader loader = new DataLoader(stream, options(10, 2, 2).dropLast(true).build());

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(loader.batchesPerEpoch()).isZero();
    assertThat(epoch.sizes()).isEmpty();
    assertThat(loader.droppedRows()).isEqualTo(rows);
    stream.closeAndCheck(loader);
    assertThat(stream.streamsOpened).hasValue(1);
  }

  @Test
  void shouldYieldOneShortBatchForFewerRowsThanABatchWithoutDropLast() {
    TestStream stream = TestStream.known(4).chunks(3);
    DataLoader loader = new DataLoader(stream, options(10, 1, 1).build());

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.sizes()).containsExactly(4);
    assertThat(epoch.labels()).containsExactly(0L, 1L, 2L, 3L);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {0, 2})
  void shouldCopyChunksThatWriteWithTheTypedPuts(int workers) {
    TestStream stream = TestStream.known(500).randomChunks(11, 1, 3, 17, 50).typed();
    DataLoader loader = new DataLoader(stream, options(12, workers, 2).build());

    StreamedRows.Epoch epoch = StreamedRows.Epoch.of(loader.epoch(0));

    assertThat(epoch.labels()).containsExactlyElementsOf(StreamedRows.range(500));
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldTellWhereEachRowCameFromAndMeasureTheEpoch() {
    TestStream stream = TestStream.known(25).chunks(4);
    DataLoader loader = new DataLoader(stream, options(10, 1, 2).build());
    List<Long> positions = new ArrayList<>();

    for (Batch batch : loader.epoch(0)) {
      for (int r = 0; r < batch.size(); r++) {
        positions.add(batch.sampleIndex(r));
      }
    }

    assertThat(positions).containsExactlyElementsOf(StreamedRows.range(25));
    assertThat(loader.metrics().last().batches()).isEqualTo(3);
    assertThat(loader.metrics().last().samples()).isEqualTo(25);
    assertThat(loader.metrics().last().workers()).hasSize(1);
    assertThat(loader.report().toString()).isNotBlank();
    stream.closeAndCheck(loader);
  }

  @Test
  void shouldOpenOneStreamPerEpochAndCloseEachOnce() {
    TestStream stream = TestStream.known(100).chunks(9);
    DataLoader loader = new DataLoader(stream, options(10, 2, 2).persistentWorkers(true).build());

    for (int e = 0; e < 3; e++) {
      StreamedRows.Epoch.of(loader.epoch(e));
    }

    assertThat(stream.streamsOpened).hasValue(3);
    stream.closeAndCheck(loader);
  }

  @ParameterizedTest(name = "numWorkers={0}")
  @ValueSource(ints = {1, 3})
  void shouldHaveClosedTheStreamOnceTheLastBatchIsHandedOut(int workers) {
    TestStream stream = TestStream.known(100).chunks(9);
    DataLoader loader = new DataLoader(stream, options(10, workers, 2).build());
    List<Integer> epochsLeavingTheStreamOpen = new ArrayList<>();

    for (int e = 0; e < 300; e++) {
      StreamedRows.Epoch.of(loader.epoch(e));
      if (stream.streamsClosed.get() != stream.streamsOpened.get()) {
        epochsLeavingTheStreamOpen.add(e);
      }
      stream.awaitStreamsClosed();
    }

    assertThat(epochsLeavingTheStreamOpen).isEmpty();
    stream.closeAndCheck(loader);
  }
}
