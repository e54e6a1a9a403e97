package dev.stoker.loader.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BottleneckReportTest {
  private static final long WALL = 1_000_000_000L; // one second
  private static final int CORES = 8;

  /**
   * An epoch of one second in which the consumer waited {@code wait} of its time, the next batch
   * waited {@code slotWait} of the epoch for a slot, and worker i was busy {@code busy[i]} of it
   * over 100 batches. The prefetch window is 2 per worker (1 without workers), the slot limit one
   * more than that.
   */
  private static EpochMetrics epoch(int numWorkers, double wait, double slotWait, double... busy) {
    int window = numWorkers == 0 ? 1 : 2 * numWorkers;
    return epoch(numWorkers, window, window + 1, wait, slotWait, 2.0, busy);
  }

  private static EpochMetrics epoch(
      int numWorkers,
      int window,
      int slotLimit,
      double wait,
      double slotWait,
      double meanReady,
      double... busy) {
    List<WorkerMetrics> workers = new ArrayList<>();
    for (int i = 0; i < busy.length; i++) {
      workers.add(new WorkerMetrics(i, 100, Math.round(busy[i] * WALL), 0));
    }
    long batches = 100L * busy.length;
    return new EpochMetrics(
        0,
        32,
        numWorkers,
        window,
        slotLimit,
        batches,
        batches * 32,
        WALL,
        Math.round(wait * WALL),
        Math.round((1 - wait) * WALL),
        Math.round(slotWait * WALL),
        meanReady,
        0,
        0,
        workers,
        0,
        List.of());
  }

  // --- verdicts ---

  @Test
  void shouldFindThePipelineBoundWhenTheConsumerWaitsAndCoresAreSpare() {
    BottleneckReport report = BottleneckReport.of(epoch(2, 0.6, 0, 0.5, 0.5), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.PIPELINE_BOUND);
    assertThat(report.findings()).hasSize(1);
    assertThat(report.summary())
        .isEqualTo(
            "pipeline-bound: the consumer waited 60% of its time "
                + "for data (5.00 ms per batch to fill); raise numWorkers (now 2, cores 8) or "
                + "prefetchFactor");
  }

  @Test
  void shouldAdviseCheaperSamplesWhenTheWorkersAlreadyMatchTheCores() {
    double[] busy = {0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6};
    BottleneckReport report = BottleneckReport.of(epoch(8, 0.4, 0, busy), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.PIPELINE_BOUND);
    assertThat(report.findings().get(0).explanation())
        .isEqualTo(
            "the consumer waited 40% of its "
                + "time for data (6.00 ms per batch to fill); the workers already match the cores; make "
                + "samples cheaper to produce or add cores");
  }

  @Test
  void shouldFindTheCallersThreadSaturatedWithoutWorkers() {
    BottleneckReport report = BottleneckReport.of(epoch(0, 0.7, 0, 0.97), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.ONE_WORKER_SATURATED);
    assertThat(report.findings())
        .extracting(BottleneckReport.Finding::verdict)
        .containsExactly(Verdict.ONE_WORKER_SATURATED, Verdict.PIPELINE_BOUND);
    assertThat(report.summary())
        .isEqualTo(
            "one-worker-saturated: all loading runs on the "
                + "caller's thread (numWorkers=0), busy 97% of the time, while 8 cores are there; raise "
                + "numWorkers");
    assertThat(report.findings().get(1).explanation()).startsWith("the consumer waited 70% ");
  }

  @Test
  void shouldFindTheOnlyWorkerSaturated() {
    BottleneckReport report = BottleneckReport.of(epoch(1, 0.5, 0, 0.9), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.ONE_WORKER_SATURATED);
    assertThat(report.summary())
        .isEqualTo(
            "one-worker-saturated: all loading runs on the only "
                + "worker, busy 90% of the time, while 8 cores are there; raise numWorkers");
  }

  @Test
  void shouldFindOneWorkerSaturatedWhileTheOthersIdle() {
    BottleneckReport report = BottleneckReport.of(epoch(4, 0.6, 0, 0.1, 0.95, 0.1, 0.1), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.ONE_WORKER_SATURATED);
    assertThat(report.summary())
        .isEqualTo(
            "one-worker-saturated: worker 1 is busy 95% of the time "
                + "while the others average 10%: some batches cost far more than others (look at the "
                + "samples they hold)");
  }

  @Test
  void shouldNotCallABusyWorkerSaturatedWhenTheConsumerDoesNotWait() {
    BottleneckReport report = BottleneckReport.of(epoch(0, 0.01, 0, 0.97), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.COMPUTE_BOUND);
    assertThat(report.findings()).hasSize(1);
  }

  @Test
  void shouldNotCallOneWorkerSaturatedWhenEveryWorkerIsBusy() {
    BottleneckReport report = BottleneckReport.of(epoch(4, 0.6, 0, 0.9, 0.95, 0.9, 0.9), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.PIPELINE_BOUND);
  }

  @Test
  void shouldFindTheMemoryBudgetThrottlingTheWorkers() {
    EpochMetrics metrics = epoch(4, 8, 5, 0.3, 0.3, 0.5, 0.5, 0.5, 0.5, 0.5);
    BottleneckReport report = BottleneckReport.of(metrics, CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.MEMORY_BOUND);
    assertThat(report.findings())
        .extracting(BottleneckReport.Finding::verdict)
        .containsExactly(Verdict.MEMORY_BOUND, Verdict.PIPELINE_BOUND);
    assertThat(report.summary())
        .isEqualTo(
            "memory-bound: the next batch waited for a free slot "
                + "30% of the time; the memory budget allows 5 slots where 8 batches may be in flight "
                + "plus the one being used; raise maxHostBytes or lower prefetchFactor");
  }

  @Test
  void shouldNotCallItMemoryBoundWhenTheConsumerHardlyWaits() {
    EpochMetrics metrics = epoch(4, 8, 5, 0.01, 0.3, 3.5, 0.4, 0.4, 0.4, 0.4);
    BottleneckReport report = BottleneckReport.of(metrics, CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.COMPUTE_BOUND);
    assertThat(report.findings())
        .extracting(BottleneckReport.Finding::verdict)
        .containsExactly(Verdict.COMPUTE_BOUND);
  }

  @Test
  void shouldFindTheConsumerTheBottleneckWhenItHardlyWaits() {
    EpochMetrics metrics = epoch(4, 8, 9, 0.01, 0, 3.5, 0.4, 0.4, 0.4, 0.4);
    BottleneckReport report = BottleneckReport.of(metrics, CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.COMPUTE_BOUND);
    assertThat(report.summary())
        .isEqualTo(
            "compute-bound: the consumer waited only 1.0% of its "
                + "time and 3.5 batches were ready on average: data is ready before it is asked for; the "
                + "loader is not the bottleneck");
  }

  @Test
  void shouldFindTheLoaderBalancedWhenTheConsumerWaitsALittle() {
    BottleneckReport report = BottleneckReport.of(epoch(2, 0.1, 0.05, 0.5, 0.5), CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.BALANCED);
    assertThat(report.summary())
        .isEqualTo(
            "balanced: the consumer waited 10% of its time; "
                + "neither side holds the other up much");
  }

  @Test
  void shouldPlaceTheThresholdsOnTheirBoundaries() {
    assertThat(BottleneckReport.of(epoch(2, 0.25, 0, 0.5, 0.5), CORES).verdict())
        .isEqualTo(Verdict.PIPELINE_BOUND);
    assertThat(BottleneckReport.of(epoch(2, 0.05, 0, 0.5, 0.5), CORES).verdict())
        .isEqualTo(Verdict.BALANCED);
    assertThat(BottleneckReport.of(epoch(2, 0.1, 0.1, 0.5, 0.5), CORES).verdict())
        .isEqualTo(Verdict.MEMORY_BOUND);
  }

  @Test
  void shouldNotCallAnEpochWithoutBatchesComputeBound() {
    EpochMetrics empty =
        new EpochMetrics(
            0,
            32,
            2,
            4,
            5,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            List.of(new WorkerMetrics(0, 0, 0, 0), new WorkerMetrics(1, 0, 0, 0)),
            0,
            List.of());
    BottleneckReport report = BottleneckReport.of(empty, CORES);

    assertThat(report.verdict()).isEqualTo(Verdict.BALANCED);
    assertThat(report.summary())
        .isEqualTo(
            "balanced: the consumer waited 0% of its time; "
                + "neither side holds the other up much");
  }

  @Test
  void shouldListTheMetricsAndEveryFindingInToString() {
    EpochMetrics metrics = epoch(0, 0.7, 0, 0.97);
    String text = BottleneckReport.of(metrics, CORES).toString();

    assertThat(text)
        .startsWith(metrics.toString())
        .contains("  one-worker-saturated: all loading runs on the caller's thread")
        .contains("  pipeline-bound: the consumer waited 70%");
  }

  // --- EpochMetrics arithmetic ---

  @Test
  void shouldDeriveRatesAndFractionsFromTheRecord() {
    EpochMetrics metrics =
        new EpochMetrics(
            1,
            32,
            2,
            4,
            5,
            200,
            6400,
            2 * WALL,
            300,
            700,
            WALL / 2,
            1.5,
            8_000_000,
            4,
            List.of(new WorkerMetrics(0, 150, 3 * WALL, 0), new WorkerMetrics(1, 50, WALL / 2, 0)),
            0,
            List.of());

    assertThat(metrics.seconds()).isEqualTo(2.0);
    assertThat(metrics.samplesPerSecond()).isEqualTo(3200.0);
    assertThat(metrics.waitFraction()).isEqualTo(0.3);
    assertThat(metrics.slotWaitFraction()).isEqualTo(0.25);
    assertThat(metrics.workerBusy()).containsExactly(1.0, 0.25); // capped at 1
    assertThat(metrics.meanFillMillis()).isEqualTo(17.5); // 3.5 s over 200 batches
    assertThat(metrics.meanTransferMillis()).isEqualTo(2.0);
    assertThat(metrics)
        .hasToString(
            "epoch 1: 200 batches, 3200 samples/s, first batch 0.0 ms, consumer waited 30%, "
                + "workers busy [100%,25%], fill 17.50 ms/batch, transfer 2.00 ms/batch, 1.5 batches "
                + "ready, 0 skipped");
  }

  @Test
  void shouldJudgeTheSteadyStateAndNotTheWaitForTheFirstBatch() {
    // A slow consumer whose only wait was the first batch (threads starting, first reads) while a
    // small budget kept the workers waiting for slots: compute-bound, not memory-bound.
    long firstWait = WALL / 10;
    EpochMetrics metrics =
        new EpochMetrics(
            0,
            32,
            2,
            8,
            3,
            60,
            60 * 32,
            WALL,
            firstWait,
            WALL - firstWait,
            WALL * 9 / 10,
            1.8,
            0,
            0,
            List.of(
                new WorkerMetrics(0, 30, WALL / 100, 0), new WorkerMetrics(1, 30, WALL / 100, 0)),
            0,
            List.of(),
            0,
            firstWait);

    assertThat(metrics.waitFraction()).isZero();
    assertThat(metrics.firstBatchMillis()).isEqualTo(100.0);
    assertThat(BottleneckReport.of(metrics, CORES).verdict()).isEqualTo(Verdict.COMPUTE_BOUND);
  }

  @Test
  void shouldGiveZeroRatherThanDivideByZero() {
    EpochMetrics empty =
        new EpochMetrics(
            0,
            32,
            0,
            1,
            2,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            List.of(new WorkerMetrics(0, 0, 0, 0)),
            0,
            List.of());

    assertThat(empty.samplesPerSecond()).isZero();
    assertThat(empty.waitFraction()).isZero();
    assertThat(empty.slotWaitFraction()).isZero();
    assertThat(empty.workerBusy()).containsExactly(0.0);
    assertThat(empty.meanFillMillis()).isZero();
    assertThat(empty.meanTransferMillis()).isZero();
  }

  // --- EpochCounters -> snapshot ---

  @Test
  void shouldSnapshotTheCountersArithmetic() {
    AtomicLong slotWaitClock = new AtomicLong(5_000); // waits before the epoch do not count
    EpochCounters counters = new EpochCounters(3, 8, 2, 4, 5, slotWaitClock::get);
    counters.addConsumerWait(100); // the first batch: start-up
    counters.worker(0).addFill(1_000);
    counters.worker(0).addWindowWait(50);
    counters.worker(1).addFill(3_000);
    counters.worker(1).addFill(2_000);
    counters.addDelivered(8, 2);
    counters.addConsumerHold(700);
    counters.addConsumerWait(300);
    counters.addDelivered(5, 4);
    counters.addTransfer(1_000_000);
    counters.addTransfer(3_000_000);
    slotWaitClock.set(8_000);

    EpochMetrics metrics = counters.snapshot();

    assertThat(metrics.epoch()).isEqualTo(3);
    assertThat(metrics.batchSize()).isEqualTo(8);
    assertThat(metrics.numWorkers()).isEqualTo(2);
    assertThat(metrics.prefetchWindow()).isEqualTo(4);
    assertThat(metrics.slotLimit()).isEqualTo(5);
    assertThat(metrics.batches()).isEqualTo(2);
    assertThat(metrics.samples()).isEqualTo(13);
    assertThat(metrics.consumerWaitNanos()).isEqualTo(400);
    assertThat(metrics.firstWaitNanos()).isEqualTo(100);
    assertThat(metrics.consumerHoldNanos()).isEqualTo(700);
    assertThat(metrics.waitFraction()).isEqualTo(0.3); // the first wait is start-up
    assertThat(metrics.slotWaitNanos()).isEqualTo(3_000);
    assertThat(metrics.meanReadyBatches()).isEqualTo(3.0);
    assertThat(metrics.meanTransferMillis()).isEqualTo(2.0);
    assertThat(metrics.workers())
        .containsExactly(new WorkerMetrics(0, 1, 1_000, 50), new WorkerMetrics(1, 2, 5_000, 0));
    assertThat(metrics.meanFillMillis()).isCloseTo(6_000 / 3 / 1e6, within(1e-12));

    long wall = metrics.wallNanos();
    assertThat(wall).isPositive();
    assertThat(metrics.samplesPerSecond()).isCloseTo(13 / (wall / 1e9), within(1e-6));
    assertThat(metrics.workerBusy())
        .containsExactly(Math.min(1.0, 1_000.0 / wall), Math.min(1.0, 5_000.0 / wall));
    assertThat(counters.snapshot().wallNanos())
        .as("wall time ends at the last delivered batch")
        .isEqualTo(wall);
  }

  @Test
  void shouldCountNoSlotWaitWhenThePoolClockStandsStill() {
    EpochCounters counters = new EpochCounters(0, 4, 1, 2, 3, () -> 123_456L);
    counters.addDelivered(4, 0);
    assertThat(counters.snapshot().slotWaitNanos()).isZero();
    assertThat(counters.snapshot().slotWaitFraction()).isZero();
  }

  @Test
  void shouldKeepOneCallersThreadCounterWithoutWorkers() {
    EpochCounters counters = new EpochCounters(0, 4, 0, 1, 2, () -> 0L);
    counters.worker(0).addFill(10);
    EpochMetrics metrics = counters.snapshot();
    assertThat(metrics.workers()).containsExactly(new WorkerMetrics(0, 1, 10, 0));
    assertThat(metrics.batches()).isZero();
    assertThat(metrics.meanReadyBatches()).isZero();
  }

  @Test
  void shouldCountEverySkippedSampleButKeepOnlyTheFirstHundred() {
    EpochCounters counters = new EpochCounters(0, 4, 2, 4, 5, () -> 0L);
    for (int i = 0; i < EpochCounters.SKIPPED_KEPT + 5; i++) {
      counters.addSkipped(new SkippedSample(0, i / 4, i, "bad " + i));
    }
    EpochMetrics metrics = counters.snapshot();
    assertThat(metrics.skippedCount()).isEqualTo(105);
    assertThat(metrics.skipped()).hasSize(100);
    assertThat(metrics.skipped().get(99)).hasToString("epoch 0 batch 24 sample 99: bad 99");
  }
}
