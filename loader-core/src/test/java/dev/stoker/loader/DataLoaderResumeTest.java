package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.state.InputChangedException;
import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.state.Segment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DataLoaderResumeTest {
  /** Loader-level cases of the property test (the sampler's own test runs thousands more). */
  private static final int CASES = Integer.getInteger("stoker.resume.loaderCases", 150);

  /** An {@link IndexDataset} that records every index read. */
  private static final class Recording implements MapDataset {
    private final IndexDataset data;
    final Set<Integer> read = ConcurrentHashMap.newKeySet();

    Recording(int size) {
      data = new IndexDataset(size);
    }

    @Override
    public Schema schema() {
      return data.schema();
    }

    @Override
    public int size() {
      return data.size();
    }

    @Override
    public void write(int index, SampleWriter row) throws Exception {
      read.add(index);
      data.write(index, row);
    }
  }

  private static LoaderOptions options(
      int workers, boolean shuffle, boolean dropLast, int batchSize) {
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(batchSize)
            .shuffle(shuffle)
            .seed(11)
            .dropLast(dropLast)
            .numWorkers(workers);
    return workers > 0 ? options.prefetchFactor(2).build() : options.build();
  }

  private static List<long[]> rest(Iterator<Batch> epoch) {
    List<long[]> batches = new ArrayList<>();
    while (epoch.hasNext()) {
      batches.add(IndexDataset.labels(epoch.next()));
    }
    return batches;
  }

  private static List<long[]> take(Iterator<Batch> epoch, int count) {
    List<long[]> batches = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batches.add(IndexDataset.labels(epoch.next()));
    }
    return batches;
  }

  @ParameterizedTest(name = "numWorkers={0} shuffle={1} dropLast={2}")
  @CsvSource({
    "0,true,false",
    "0,false,true",
    "1,true,true",
    "1,false,false",
    "2,true,false",
    "2,false,true"
  })
  void shouldYieldTheBatchesAnUninterruptedRunWouldFromTheCutOnWithoutReadingTheSkippedRows(
      int workers, boolean shuffle, boolean dropLast) {
    LoaderOptions options = options(workers, shuffle, dropLast, 7);
    Placement placement = Placement.of(1, 3);
    List<long[]> whole;
    List<long[]> next;
    DataLoader uninterrupted =
        DataLoader.builder(new IndexDataset(500)).options(options).placement(placement).build();
    try {
      whole = rest(uninterrupted.epoch(2).iterator());
      next = rest(uninterrupted.epoch(3).iterator());
    } finally {
      LoaderLeaks.closeAndCheck(uninterrupted);
    }
    String saved;
    DataLoader first =
        DataLoader.builder(new IndexDataset(500)).options(options).placement(placement).build();
    try {
      Iterator<Batch> epoch = first.epoch(2).iterator();
      assertThat(take(epoch, 9))
          .usingElementComparator(Arrays::compare)
          .containsExactlyElementsOf(whole.subList(0, 9));
      saved = first.state().toString();
    } finally {
      LoaderLeaks.closeAndCheck(first);
    }
    Recording data = new Recording(500);
    DataLoader resumed =
        DataLoader.builder(data)
            .options(options)
            .placement(placement)
            .resumeFrom(LoaderState.parse(saved))
            .build();
    try {
      assertThat(resumed.batchesInEpoch(2)).isEqualTo(whole.size() - 9);
      Iterator<Batch> epoch = resumed.iterator();
      assertThat(((BatchIterator) epoch).epoch()).isEqualTo(2);
      List<long[]> after = rest(epoch);
      assertThat(after)
          .usingElementComparator(Arrays::compare)
          .containsExactlyElementsOf(whole.subList(9, whole.size()));
      assertThat(data.read)
          .as("rows read in the resumed epoch")
          .containsExactlyInAnyOrderElementsOf(rows(after));
      assertThat(rest(resumed.iterator()))
          .as("the next epoch, as a fresh run's")
          .usingElementComparator(Arrays::compare)
          .containsExactlyElementsOf(next);
    } finally {
      LoaderLeaks.closeAndCheck(resumed);
    }
  }

  private static Set<Integer> rows(List<long[]> batches) {
    Set<Integer> rows = new HashSet<>();
    for (long[] batch : batches) {
      for (long row : batch) {
        rows.add((int) row);
      }
    }
    return rows;
  }

  @Test
  void shouldDeliverEveryRowOfTheEpochOnceWhenResumedOnAnotherNumberOfRanks() {
    Random random = new Random(16);
    for (int c = 0; c < CASES; c++) {
      int n = 1 + random.nextInt(150);
      int batchSize = 1 + random.nextInt(9);
      int worldSize = 1 + random.nextInt(4);
      int resumedOn = 1 + random.nextInt(4);
      boolean dropLast = random.nextBoolean();
      boolean shuffle = random.nextBoolean();
      int workers = random.nextInt(3);
      int epoch = random.nextInt(3);
      String label =
          String.format(
              "case %d: n=%d batchSize=%d W=%d W'=%d dropLast=%s shuffle=%s " + "numWorkers=%d",
              c, n, batchSize, worldSize, resumedOn, dropLast, shuffle, workers);
      if ((long) batchSize * worldSize > n && dropLast) {
        continue;
      }
      LoaderOptions options = options(workers, shuffle, dropLast, batchSize);
      int[] seen = new int[n];
      List<List<long[]>> before = new ArrayList<>();
      LoaderState state = null;
      int cut = -1;
      for (int r = 0; r < worldSize; r++) {
        DataLoader loader =
            new DataLoader(new IndexDataset(n), options, Placement.of(r, worldSize));
        try {
          if (cut < 0) {
            cut = random.nextInt(loader.batchesPerEpoch() + 1);
          }
          Iterator<Batch> it = loader.epoch(epoch).iterator();
          before.add(take(it, cut));
          state = LoaderState.parse(loader.state().toString());
          before.get(r).forEach(b -> Arrays.stream(b).forEach(i -> seen[(int) i]++));
          rest(it);
        } finally {
          LoaderLeaks.closeAndCheck(loader);
        }
      }
      long dropped = 0;
      long padded = 0;
      int[] counts = new int[resumedOn];
      if (state.epoch() == epoch) {
        for (int r = 0; r < resumedOn; r++) {
          DataLoader loader =
              DataLoader.builder(new IndexDataset(n))
                  .options(options)
                  .placement(Placement.of(r, resumedOn))
                  .resumeFrom(state)
                  .build();
          try {
            List<long[]> after = rest(loader.iterator());
            counts[r] = after.size();
            for (long[] batch : after) {
              if (dropLast) {
                assertThat(batch).as(label).hasSize(batchSize);
              }
              Arrays.stream(batch).forEach(i -> seen[(int) i]++);
            }
            if (r == 0) {
              long left = n - state.consumedRows();
              long delivered = (long) after.size() * batchSize * resumedOn;
              dropped = dropLast ? left - delivered : 0;
              padded =
                  dropLast
                      ? 0
                      : Math.max(
                          0,
                          (after.isEmpty()
                                  ? 0
                                  : (long) ((left + resumedOn - 1) / resumedOn) * resumedOn)
                              - left);
            }
            assertThat(loader.droppedRowsAllRanks(state.epoch()))
                .as(label + " the loader's drops of the resumed epoch")
                .isEqualTo(dropped);
          } finally {
            LoaderLeaks.closeAndCheck(loader);
          }
        }
        assertThat(counts).as(label + " batches per rank").containsOnly(counts[0]);
      } else {
        assertThat(cut).as(label + " a state past the epoch's end").isEqualTo(before.get(0).size());
        DataLoader whole = new DataLoader(new IndexDataset(n), options, Placement.of(0, worldSize));
        dropped = whole.droppedRowsAllRanks();
        padded = dropLast ? 0 : (long) ((n + worldSize - 1) / worldSize) * worldSize - n;
        LoaderLeaks.closeAndCheck(whole);
      }
      long missing = Arrays.stream(seen).filter(x -> x == 0).count();
      long repeats = Arrays.stream(seen).map(x -> Math.max(0, x - 1)).sum();
      assertThat(missing).as(label + " rows never delivered").isEqualTo(dropped);
      assertThat(repeats).as(label + " rows twice").isEqualTo(padded);
      assertThat(dropped).as(label).isLessThan((long) Math.max(worldSize, resumedOn) * batchSize);
    }
  }

  /** 4,455 rows, batches of 32, 2 ranks cut after 4,160 rows, resumed on 3: 7 rows left out. */
  @Test
  void shouldReportTheDropsOfTheResumedEpochNotOfAFreshOne() {
    int n = 4455;
    LoaderState cut =
        LoaderState.startOf(11, true, 0, 2, 32, true, 0, InputFingerprint.ofRows(n))
            .plusBatches(65);
    assertThat(cut.consumedRows()).isEqualTo(4160);
    DataLoader loader =
        DataLoader.builder(new IndexDataset(n))
            .options(options(1, true, true, 32))
            .placement(Placement.of(1, 3))
            .resumeFrom(cut)
            .build();
    try {
      assertThat(loader.droppedRowsAllRanks()).as("the resumed epoch's").isEqualTo(7);
      assertThat(loader.droppedRows()).isEqualTo(98 - 96);
      assertThat(loader.droppedRowsAllRanks(1)).as("a fresh epoch's").isEqualTo(n % 96);
      assertThat(rest(loader.iterator())).hasSize(3);
      assertThat(loader.droppedRowsAllRanks()).as("once the next epoch is next").isEqualTo(n % 96);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  /** A checksum only proves the string is intact; the rows it claims must fit the input. */
  @Test
  void shouldRefuseAStateThatClaimsMoreRowsThanTheInputHeld() {
    LoaderOptions options = options(0, true, true, 5);
    LoaderState tooFar =
        new LoaderState(
            11, true, 0, 0, 5, true, 0, List.of(new Segment(2, 60)), InputFingerprint.ofRows(100));
    assertThatThrownBy(
            () ->
                DataLoader.builder(new IndexDataset(100))
                    .options(options)
                    .resumeFrom(tooFar)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "resumeFrom: segment 1 of 1 claims 60 row(s) consumed per rank on 2 rank(s), "
                + "but epoch 0 of 100 rows had 100 left there, at most 50 per rank in batches of 5 "
                + "(expected: a state this input made; the state is not of this input)");
    LoaderState laterTooFar =
        new LoaderState(
            11,
            true,
            0,
            0,
            5,
            true,
            0,
            List.of(new Segment(2, 40), new Segment(1, 25)),
            InputFingerprint.ofRows(100));
    assertThatThrownBy(
            () ->
                DataLoader.builder(new IndexDataset(100))
                    .options(options)
                    .resumeFrom(laterTooFar)
                    .build())
        .hasMessageContaining("segment 2 of 2 claims 25 row(s)")
        .hasMessageContaining("had 20 left there");
    LoaderState streams =
        new LoaderState(
            11, true, 0, 0, 5, true, 64, List.of(new Segment(2, 10)), InputFingerprint.ofRows(100));
    assertThatThrownBy(
            () ->
                DataLoader.builder(new IndexDataset(100))
                    .options(options)
                    .resumeFrom(streams)
                    .build())
        .hasMessageContaining("the state is a stream's");
    LoaderState otherOrder =
        new LoaderState(
            11, true, 2, 1, 5, true, 0, List.of(new Segment(2, 10)), InputFingerprint.ofRows(100));
    assertThatThrownBy(
            () ->
                DataLoader.builder(new IndexDataset(100))
                    .options(options)
                    .resumeFrom(otherOrder)
                    .build())
        .hasMessageContaining("orderEpoch 1 differs from epoch 2");
    LoaderState whole =
        new LoaderState(
            11, true, 0, 0, 5, true, 0, List.of(new Segment(2, 50)), InputFingerprint.ofRows(100));
    DataLoader done =
        DataLoader.builder(new IndexDataset(100)).options(options).resumeFrom(whole).build();
    try {
      assertThat(done.state().describe())
          .as("an epoch consumed to its end is the next's start")
          .startsWith("epoch 1, 0 row(s)");
    } finally {
      LoaderLeaks.closeAndCheck(done);
    }
  }

  @Test
  void shouldTakeTheStateOfTheNextEpochAfterTheLastBatch() {
    DataLoader loader = new DataLoader(new IndexDataset(20), options(1, true, true, 5));
    try {
      assertThat(loader.state())
          .isEqualTo(LoaderState.startOf(11, true, 0, 1, 5, true, 0, InputFingerprint.ofRows(20)));
      Iterator<Batch> epoch = loader.iterator();
      take(epoch, 3);
      assertThat(loader.state().describe())
          .isEqualTo("epoch 0, 15 row(s) consumed " + "(3 batch(es) x 5 x 1 rank(s))");
      take(epoch, 1);
      assertThat(loader.state().describe())
          .isEqualTo("epoch 1, 0 row(s) consumed " + "(0 batch(es) x 5 x 1 rank(s))");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldCarryTheRowsConsumedBeforeIntoTheStatesOfAResumedLoader() {
    LoaderState cut =
        new LoaderState(
            11, true, 1, 1, 5, true, 0, List.of(new Segment(3, 10)), InputFingerprint.ofRows(100));
    DataLoader loader =
        DataLoader.builder(new IndexDataset(100))
            .options(options(0, true, true, 5))
            .placement(Placement.of(0, 2))
            .resumeFrom(cut)
            .build();
    try {
      assertThat(loader.state().describe())
          .isEqualTo(
              "epoch 1, 30 row(s) consumed " + "(30 before, then 0 batch(es) x 5 x 2 rank(s))");
      Iterator<Batch> epoch = loader.iterator();
      take(epoch, 2);
      assertThat(loader.state().consumedRows()).isEqualTo(50);
      assertThat(loader.batchesInEpoch(1)).isEqualTo(7);
      assertThat(loader.batchesInEpoch(2)).isEqualTo(10);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldRefuseAStateOfAnotherOrderOrOtherInput() {
    LoaderState state =
        new LoaderState(
            11, true, 1, 1, 5, true, 0, List.of(new Segment(1, 10)), InputFingerprint.ofRows(100));
    assertThatThrownBy(
            () ->
                DataLoader.builder(new IndexDataset(100))
                    .options(LoaderOptions.builder().batchSize(5).shuffle(true).seed(12).build())
                    .resumeFrom(state)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "resumeFrom: the state was taken with seed=11, this loader has seed=12 "
                + "(expected: the same order; set seed=11)");
    assertThatThrownBy(
            () ->
                DataLoader.builder(new IndexDataset(100))
                    .options(LoaderOptions.builder().batchSize(5).build())
                    .resumeFrom(state)
                    .build())
        .hasMessage(
            "resumeFrom: the state was taken with shuffle=true, this loader has "
                + "shuffle=false (expected: the same order; set shuffle=true)");
    assertThatThrownBy(
            () ->
                DataLoader.builder(new IndexDataset(120))
                    .options(options(0, true, true, 5))
                    .resumeFrom(state)
                    .build())
        .isInstanceOf(InputChangedException.class)
        .hasMessageStartingWith(
            "the input changed since the state was taken: 'rows' rewritten "
                + "(size 100 -> 120) (expected: ");
    DataLoader accepted =
        DataLoader.builder(new IndexDataset(120))
            .options(options(0, true, true, 5))
            .resumeFrom(state)
            .acceptChangedInput(true)
            .build();
    try {
      assertThat(accepted.batchesInEpoch(1)).isEqualTo(22);
    } finally {
      LoaderLeaks.closeAndCheck(accepted);
    }
  }

  @Test
  void shouldSayAStreamKeepsItsPositionInItsReader() {
    DataLoader loader =
        new DataLoader(TestStream.known(10), LoaderOptions.builder().batchSize(5).build());
    try {
      assertThatThrownBy(loader::state)
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("reads a stream: its position is its reader's");
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }
}
