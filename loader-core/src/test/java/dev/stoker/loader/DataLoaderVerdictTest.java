package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.metrics.BottleneckReport;
import dev.stoker.loader.metrics.Verdict;
import org.junit.jupiter.api.Test;

/**
 * The verdict of real loaders whose imbalance is made by sleeping (milliseconds against
 * microseconds of real work), over enough batches that the start of the epoch weighs little, so
 * that it holds on a busy machine too.
 */
class DataLoaderVerdictTest {

  private static BottleneckReport run(
      StreamedDataset dataset, LoaderOptions options, long consumerMillis)
      throws InterruptedException {
    try (DataLoader loader = new DataLoader(dataset, options)) {
      for (Batch batch : loader.epoch(0)) {
        batch.size();
        Thread.sleep(consumerMillis);
      }
      return BottleneckReport.of(loader.metrics().last(), 4);
    }
  }

  private static BottleneckReport run(
      IndexDataset dataset, LoaderOptions options, long consumerMillis)
      throws InterruptedException {
    try (DataLoader loader = new DataLoader(dataset, options)) {
      for (Batch batch : loader.epoch(0)) {
        IndexDataset.labels(batch);
        Thread.sleep(consumerMillis);
      }
      return BottleneckReport.of(loader.metrics().last(), 4);
    }
  }

  @Test
  void shouldCallASlowConsumerComputeBound() throws InterruptedException {
    BottleneckReport report =
        run(new IndexDataset(480), LoaderOptions.builder().batchSize(8).numWorkers(2).build(), 10);
    assertThat(report.verdict()).as(report.toString()).isEqualTo(Verdict.COMPUTE_BOUND);
  }

  @Test
  void shouldCallSlowLoadingInTheCallersThreadOneWorkerSaturated() throws InterruptedException {
    BottleneckReport report =
        run(
            new IndexDataset(48).sleepingUpTo(4000),
            LoaderOptions.builder().batchSize(8).build(),
            0);
    assertThat(report.verdict()).as(report.toString()).isEqualTo(Verdict.ONE_WORKER_SATURATED);
    assertThat(report.summary()).contains("numWorkers=0", "raise numWorkers");
  }

  @Test
  void shouldCallSlowWorkersPipelineBound() throws InterruptedException {
    BottleneckReport report =
        run(
            new IndexDataset(96).sleepingUpTo(4000),
            LoaderOptions.builder().batchSize(8).numWorkers(2).build(),
            0);
    assertThat(report.verdict()).as(report.toString()).isEqualTo(Verdict.PIPELINE_BOUND);
    assertThat(report.summary()).contains("raise numWorkers (now 2, cores 4)");
  }

  @Test
  void shouldNotBlameASmallBudgetWhileTheConsumerIsTheSlowSide() throws InterruptedException {
    // Three slots for a prefetch window of eight: the workers wait for slots most of the time,
    // but the consumer never waits for data, so memory is not what holds training back.
    long slot = new BatchLayout(IndexDataset.SCHEMA, 8).slotBytes();
    BottleneckReport report =
        run(
            new IndexDataset(480),
            LoaderOptions.builder()
                .batchSize(8)
                .numWorkers(2)
                .prefetchFactor(4)
                .maxHostBytes(3 * slot)
                .build(),
            15);
    assertThat(report.metrics().slotWaitFraction()).as(report.toString()).isGreaterThan(0.1);
    assertThat(report.verdict()).as(report.toString()).isEqualTo(Verdict.COMPUTE_BOUND);
  }

  @Test
  void shouldSeeTheConsumerOfASlowStreamOfUnknownLengthStarve() throws InterruptedException {
    // The consumer of a stream whose length is not declared meets its waits in hasNext(); they
    // are waits for data all the same.
    TestStream stream = TestStream.unknown(480).chunks(8).onNext(chunk -> Thread.sleep(4));
    BottleneckReport report =
        run(stream, LoaderOptions.builder().batchSize(8).numWorkers(1).build(), 0);
    assertThat(report.metrics().waitFraction()).as(report.toString()).isGreaterThan(0.5);
    // One worker busy nearly all the time; on a loaded machine it may be descheduled below the
    // saturation mark, and the loading side is then blamed as a whole.
    assertThat(report.verdict())
        .as(report.toString())
        .isIn(Verdict.ONE_WORKER_SATURATED, Verdict.PIPELINE_BOUND);
  }

  @Test
  void shouldCallASlowConsumerOfAStreamComputeBound() throws InterruptedException {
    TestStream stream = TestStream.unknown(480).chunks(8);
    BottleneckReport report =
        run(stream, LoaderOptions.builder().batchSize(8).numWorkers(2).build(), 10);
    assertThat(report.verdict()).as(report.toString()).isEqualTo(Verdict.COMPUTE_BOUND);
  }
}
