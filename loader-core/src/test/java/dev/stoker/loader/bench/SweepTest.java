package dev.stoker.loader.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SweepTest {

  @Test
  void returnsOneRowPerConfigurationAndBestIsTheFastest() {
    Sweep sweep = Sweep.builder().workers(List.of(0, 1)).prefetchFactors(List.of(2, 3))
        .pinMemory(List.of(false)).batchSize(16).warmupBatches(1).measuredBatches(5).repeats(2)
        .build();
    List<String> runs = new ArrayList<>();

    SweepResult result = sweep.run(ReferenceWorkloads.normalize(120, 1), 1000.0,
        (config, run, total, r) -> runs.add(run + "/" + total + " " + config.label()));

    assertThat(result.rows()).extracting(SweepRow::config).containsExactly(
        new SweepConfig(0, null, false), new SweepConfig(1, 2, false),
        new SweepConfig(1, 3, false));
    assertThat(runs).hasSize(6).startsWith("1/6 workers=0 prefetch=- pin=false");
    double fastest = result.rows().stream().mapToDouble(SweepRow::samplesPerSecond).max()
        .orElseThrow();
    assertThat(result.best().samplesPerSecond()).isEqualTo(fastest);
    for (SweepRow row : result.rows()) {
      assertThat(row.runs()).hasSize(2);
      assertThat(row.samplesPerSecond()).isPositive();
      assertThat(row.ratioToMemcpy()).isEqualTo(row.mbPerSecond() / 1000.0);
      assertThat(row.verdict()).isNotNull();
    }
    assertThat(result.samples()).isEqualTo(120);
    assertThat(result.batchSize()).isEqualTo(16);
  }

  @Test
  void runsAStreamAsAMapDataset() {
    Sweep sweep = Sweep.builder().workers(List.of(2)).prefetchFactors(List.of(2)).batchSize(16)
        .warmupBatches(2).measuredBatches(12).repeats(1).build();
    StreamedDataset source = (CopyStream) ReferenceWorkloads.stream(100, 1, 24);
    StreamedDataset plain = new StreamedDataset() {
      @Override
      public Schema schema() {
        return source.schema();
      }

      @Override
      public long rowCount() {
        return source.rowCount();
      }

      @Override
      public ChunkStream open(StreamRequest request) throws Exception {
        return source.open(request);
      }
    };

    SweepResult stream = sweep.run(plain, 500.0, (config, run, total, r) -> { });
    SweepResult map = sweep.run((MapDataset) ReferenceWorkloads.copy(100, 1), 500.0);

    assertThat(stream.samples()).isEqualTo(100);
    assertThat(stream.best().median().bytesPerSample()).isEqualTo(49_152 + 8);
    assertThat(stream.best().median().batches()).isEqualTo(12);
    assertThat(stream.best().ratioToMemcpy()).isEqualTo(stream.best().mbPerSecond() / 500.0);
    assertThat(map.best().median().bytesPerSample()).isEqualTo(49_152);
  }

  @Test
  void gridHasOneConfigWithoutPrefetchForZeroWorkersPerPinning() {
    Sweep sweep = Sweep.builder().workers(List.of(0, 2, 2)).prefetchFactors(List.of(2, 4))
        .pinMemory(List.of(false, true)).build();

    assertThat(sweep.configs()).containsExactly(
        new SweepConfig(0, null, false), new SweepConfig(0, null, true),
        new SweepConfig(2, 2, false), new SweepConfig(2, 4, false),
        new SweepConfig(2, 2, true), new SweepConfig(2, 4, true));
  }

  @Test
  void defaultsFollowThePeer() {
    Sweep sweep = Sweep.builder().build();

    assertThat(sweep.configs()).hasSize(5);
    assertThat(sweep.batchSize()).isEqualTo(64);
    assertThat(sweep.repeats()).isEqualTo(3);
    assertThat(sweep.configs().get(1).options(64, 0).persistentWorkers()).isTrue();
    assertThat(sweep.configs().get(0).options(64, 0).persistentWorkers()).isFalse();
  }

  @Test
  void badValuesAreRejectedNamingTheOption() {
    assertThatThrownBy(() -> Sweep.builder().workers(List.of(0, -1)))
        .hasMessage("workers: -1 in [0, -1] (expected: every value >= 0)");
    assertThatThrownBy(() -> Sweep.builder().prefetchFactors(List.of(0)))
        .hasMessage("prefetch: 0 in [0] (expected: every value >= 1)");
    assertThatThrownBy(() -> Sweep.builder().repeats(0))
        .hasMessage("repeats: 0 (expected: > 0)");
    assertThatThrownBy(() -> new SweepConfig(0, 2, false))
        .hasMessageContaining("expected: a prefetch factor exactly when workers > 0");
  }
}
