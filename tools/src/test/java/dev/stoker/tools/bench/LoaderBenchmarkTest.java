package dev.stoker.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.LoaderOptions;
import org.junit.jupiter.api.Test;

class LoaderBenchmarkTest {
  private static final Workload COPY = ReferenceWorkloads.copy(100, 1);

  @Test
  void measuresExactlyTheMeasuredBatchesAcrossEpochs() {
    LoaderOptions options = new SweepConfig(2, 2, false).options(16, 0);

    BenchmarkResult result = LoaderBenchmark.run(COPY, options, 3, 20);

    assertThat(result.batches()).isEqualTo(20);
    assertThat(result.samples()).isEqualTo(20 * 16);
    assertThat(result.metrics().batches()).isEqualTo(20);
    assertThat(result.metrics().samples()).isEqualTo(20 * 16);
    assertThat(result.metrics().workers()).hasSize(2);
    assertThat(result.metrics().workers().stream().mapToLong(w -> w.batches()).sum())
        .isBetween(15L, 30L);
    assertThat(result.samplesPerSecond()).isPositive();
    assertThat(result.mbPerSecond())
        .isCloseTo(result.samplesPerSecond() * 49_152 / 1e6, within(1e-6));
    assertThat(result.verdict()).isNotNull();
    assertThat(result.options()).isSameAs(options);
  }

  @Test
  void measuresAStreamAcrossEpochsAsAMapDataset() {
    Workload stream = ReferenceWorkloads.stream(100, 1, 24);
    LoaderOptions options = new SweepConfig(2, 2, false).options(16, 0);

    BenchmarkResult result = LoaderBenchmark.run(stream, options, 3, 20);

    assertThat(result.batches()).isEqualTo(20);
    assertThat(result.samples()).isEqualTo(20 * 16);
    assertThat(result.metrics().batches()).isEqualTo(20);
    assertThat(result.epochStarts()).isEqualTo(3);
    assertThat(result.bytesPerSample()).isEqualTo(49_152);
  }

  @Test
  void reportsAllocationWhereTheJvmCanTell() {
    BenchmarkResult result =
        LoaderBenchmark.run(COPY, new SweepConfig(0, null, false).options(16, 0), 2, 10);

    if (new AllocationProbe().allocationSupported()) {
      assertThat(result.usage().allocatedBytes()).isNotNegative();
      assertThat(result.allocatedBytesPerBatch()).isNotNegative();
    } else {
      assertThat(result.allocatedBytesPerBatch()).isNaN();
    }
  }

  @Test
  void aDatasetWithoutAFullBatchIsRejected() {
    LoaderOptions options = new SweepConfig(0, null, false).options(128, 0);

    assertThatThrownBy(() -> LoaderBenchmark.run(COPY, options, 0, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("100 samples give no batch of batchSize=128");
  }

  @Test
  void badBatchCountsAreRejected() {
    LoaderOptions options = new SweepConfig(0, null, false).options(16, 0);

    assertThatThrownBy(() -> LoaderBenchmark.run(COPY, options, -1, 5))
        .hasMessage("warmupBatches: -1 (expected: >= 0)");
    assertThatThrownBy(() -> LoaderBenchmark.run(COPY, options, 0, 0))
        .hasMessage("measuredBatches: 0 (expected: > 0)");
  }
}
