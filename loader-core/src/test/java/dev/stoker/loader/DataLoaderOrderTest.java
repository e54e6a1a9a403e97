package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.sampler.DistributedSampler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DataLoaderOrderTest {

  private static List<long[]> run(DataLoader loader, int epoch) {
    List<long[]> batches = new ArrayList<>();
    for (Batch batch : loader.epoch(epoch)) {
      batches.add(IndexDataset.labels(batch));
    }
    return batches;
  }

  private static List<long[]> expected(
      int size, int batchSize, boolean dropLast, int epoch, int rank, int worldSize) {
    int[] order = new DistributedSampler(size, rank, worldSize, true, 7, dropLast).indices(epoch);
    List<long[]> batches = new ArrayList<>();
    for (int start = 0; start < order.length; start += batchSize) {
      int end = Math.min(order.length, start + batchSize);
      if (dropLast && end - start < batchSize) {
        break;
      }
      batches.add(Arrays.stream(order, start, end).asLongStream().toArray());
    }
    return batches;
  }

  @ParameterizedTest(name = "numWorkers={0} prefetchFactor={1} persistent={2}")
  @CsvSource({
    "0,0,false",
    "1,1,false",
    "1,3,true",
    "2,2,false",
    "3,1,true",
    "4,2,false",
    "4,4,true"
  })
  void shouldYieldTheSamplerOrderWhateverNumWorkers(int workers, int prefetch, boolean persistent) {
    LoaderOptions.Builder options =
        LoaderOptions.builder()
            .batchSize(8)
            .shuffle(true)
            .seed(7)
            .numWorkers(workers)
            .persistentWorkers(persistent);
    if (workers > 0) {
      options.prefetchFactor(prefetch);
    }
    DataLoader loader = new DataLoader(new IndexDataset(203), options.build());
    try {
      for (int epoch = 0; epoch < 3; epoch++) {
        assertThat(run(loader, epoch))
            .as("epoch %d", epoch)
            .containsExactlyElementsOf(expected(203, 8, false, epoch, 0, 1));
      }
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldKeepOrderWhenWorkersFinishOutOfOrder() {
    IndexDataset dataset = new IndexDataset(400).sleepingUpTo(400);
    DataLoader loader =
        new DataLoader(
            dataset,
            LoaderOptions.builder()
                .batchSize(4)
                .shuffle(true)
                .seed(7)
                .numWorkers(4)
                .prefetchFactor(3)
                .dropLast(true)
                .build());
    try {
      assertThat(run(loader, 0)).containsExactlyElementsOf(expected(400, 4, true, 0, 0, 1));
      assertThat(dataset.writerThreads).hasSize(4);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldYieldEqualFullBatchCountsOnEveryRankWithDropLast() {
    int worldSize = 3;
    int[] counts = new int[worldSize];
    for (int rank = 0; rank < worldSize; rank++) {
      DataLoader loader =
          new DataLoader(
              new IndexDataset(100),
              LoaderOptions.builder()
                  .batchSize(8)
                  .shuffle(true)
                  .seed(7)
                  .dropLast(true)
                  .numWorkers(2)
                  .build(),
              Placement.of(rank, worldSize));
      try {
        List<long[]> batches = run(loader, 1);
        assertThat(batches).allSatisfy(b -> assertThat(b).hasSize(8));
        assertThat(batches).containsExactlyElementsOf(expected(100, 8, true, 1, rank, worldSize));
        counts[rank] = batches.size();
        assertThat(loader.batchesPerEpoch()).isEqualTo(batches.size());
        // 100 rows over 3 ranks: 33 each (1 dropped), then 33 = 4 x 8 + 1 dropped per rank
        assertThat(loader.droppedRows()).isEqualTo(1);
        assertThat(loader.droppedRowsAllRanks()).isEqualTo(4);
      } finally {
        LoaderLeaks.closeAndCheck(loader);
      }
    }
    assertThat(counts).containsOnly(4);
  }

  @Test
  void shouldKeepTheShortTailWithZeroedRowsWithoutDropLast() {
    DataLoader loader =
        new DataLoader(new IndexDataset(10), LoaderOptions.builder().batchSize(4).build());
    try {
      List<Integer> sizes = new ArrayList<>();
      for (Batch batch : loader.epoch(0)) {
        sizes.add(batch.size());
        assertThat(batch.capacity()).isEqualTo(4);
        if (batch.size() < 4) {
          int labelColumn = loader.layout().columnOffset(1);
          assertThat(batch.buffer().getLong(labelColumn + 3 * 8)).isZero();
        }
      }
      assertThat(sizes).containsExactly(4, 4, 2);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldRunEpochsInTurnOnPlainIterationAndRepeatAnEpochExactly() {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(64),
            LoaderOptions.builder().batchSize(8).shuffle(true).seed(3).numWorkers(2).build());
    try {
      List<long[]> first = new ArrayList<>();
      List<long[]> second = new ArrayList<>();
      try (BatchIterator it = loader.iterator()) {
        assertThat(it.epoch()).isZero();
        it.forEachRemaining(b -> first.add(IndexDataset.labels(b)));
      }
      try (BatchIterator it = loader.iterator()) {
        assertThat(it.epoch()).isEqualTo(1);
        it.forEachRemaining(b -> second.add(IndexDataset.labels(b)));
      }
      assertThat(second).isNotEqualTo(first);
      assertThat(run(loader, 1)).containsExactlyElementsOf(second);
      assertThat(run(loader, 0)).containsExactlyElementsOf(first);
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldLoadInTheCallersThreadWithNoWorkers() {
    IndexDataset dataset = new IndexDataset(32);
    DataLoader loader = new DataLoader(dataset, LoaderOptions.builder().batchSize(8).build());
    try {
      run(loader, 0);
      assertThat(dataset.writerThreads).containsExactly(Thread.currentThread().getName());
      assertThat(LoaderLeaks.threadsOf(loader.name())).isEmpty();
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }

  @Test
  void shouldYieldNoBatchForAnEmptyDataset() {
    DataLoader loader =
        new DataLoader(
            new IndexDataset(0), LoaderOptions.builder().batchSize(8).numWorkers(2).build());
    try {
      assertThat(run(loader, 0)).isEmpty();
    } finally {
      LoaderLeaks.closeAndCheck(loader);
    }
  }
}
