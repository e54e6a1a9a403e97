package dev.stoker.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

class SweepTest {

  @Test
  void returnsOneRowPerConfigurationAndBestIsTheFastest() {
    Sweep sweep =
        Sweep.builder()
            .workers(List.of(0, 1))
            .prefetchFactors(List.of(2, 3))
            .pinMemory(List.of(false))
            .batchSize(16)
            .warmupBatches(1)
            .measuredBatches(5)
            .repeats(2)
            .build();
    List<String> runs = new ArrayList<>();

    SweepResult result =
        sweep.run(
            ReferenceWorkloads.normalize(120, 1),
            new MemcpyLimits(1000.0, 1600.0, 2),
            (config, run, total, r) -> runs.add(run + "/" + total + " " + config.label()));

    assertThat(result.rows())
        .extracting(SweepRow::config)
        .containsExactly(
            new SweepConfig(0, null, false),
            new SweepConfig(1, 2, false),
            new SweepConfig(1, 3, false));
    assertThat(runs).hasSize(6).startsWith("1/6 workers=0 prefetch=- pin=false");
    double fastest =
        result.rows().stream().mapToDouble(SweepRow::samplesPerSecond).max().orElseThrow();
    assertThat(result.best().samplesPerSecond()).isEqualTo(fastest);
    for (SweepRow row : result.rows()) {
      assertThat(row.runs()).hasSize(2);
      assertThat(row.samplesPerSecond()).isPositive();
      assertThat(row.ratioToMemcpy()).isEqualTo(row.mbPerSecond() / 1000.0);
      assertThat(row.ratioToAllCores()).isEqualTo(row.mbPerSecond() / 1600.0);
      assertThat(row.verdict()).isNotNull();
    }
    assertThat(result.samples()).isEqualTo(120);
    assertThat(result.batchSize()).isEqualTo(16);
    assertThat(result.memcpyMbPerSecond()).isEqualTo(1000.0);
    assertThat(result.memcpyAllCoresMbPerSecond()).isEqualTo(1600.0);
  }

  @Test
  void runsAStreamAndAPlainMapDatasetWithTheOneThreadLimitOnly() {
    Sweep sweep =
        Sweep.builder()
            .workers(List.of(2))
            .prefetchFactors(List.of(2))
            .batchSize(16)
            .warmupBatches(2)
            .measuredBatches(12)
            .repeats(1)
            .build();

    StreamedDataset source = (CopyStream) ReferenceWorkloads.stream(100, 1, 24);
    StreamedDataset plain =
        new StreamedDataset() {
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

    SweepResult stream =
        sweep.run(plain, new MemcpyLimits(500.0, 800.0, 2), (config, run, total, r) -> {});
    SweepResult map = sweep.run((MapDataset) ReferenceWorkloads.copy(100, 1), 500.0);

    assertThat(stream.samples()).isEqualTo(100);
    assertThat(stream.best().median().bytesPerSample()).isEqualTo(49_152 + 8);
    assertThat(stream.best().ratioToAllCores()).isEqualTo(stream.best().mbPerSecond() / 800.0);
    assertThat(stream.best().median().batches()).isEqualTo(12);
    assertThat(map.best().median().bytesPerSample()).isEqualTo(49_152);
    assertThat(map.best().ratioToMemcpy()).isEqualTo(map.best().mbPerSecond() / 500.0);
    assertThat(map.best().ratioToAllCores()).isNaN();
  }

  @Test
  void measuringTheLimitsBeforeEveryRoundComparesWithTheirMedians() {
    Sweep sweep =
        Sweep.builder()
            .workers(List.of(1))
            .prefetchFactors(List.of(2))
            .batchSize(16)
            .warmupBatches(1)
            .measuredBatches(4)
            .repeats(3)
            .build();
    Iterator<MemcpyLimits> measured =
        List.of(
                new MemcpyLimits(1000, 3000, 2),
                new MemcpyLimits(900, 1000, 2),
                new MemcpyLimits(1100, 2000, 2))
            .iterator();
    List<String> events = new ArrayList<>();

    SweepResult result =
        sweep.run(
            ReferenceWorkloads.copy(50, 1),
            measured::next,
            new Sweep.Listener() {
              @Override
              public void onRun(SweepConfig config, int run, int runs, BenchmarkResult r) {
                events.add("run " + run);
              }

              @Override
              public void onMemcpy(int round, int rounds, MemcpyLimits limits) {
                events.add("memcpy " + round + "/" + rounds);
              }
            });

    assertThat(events)
        .containsExactly("memcpy 1/3", "run 1", "memcpy 2/3", "run 2", "memcpy 3/3", "run 3");
    assertThat(result.memcpyMbPerSecond()).isEqualTo(1000.0);
    assertThat(result.memcpyAllCoresMbPerSecond()).isEqualTo(2000.0);
    assertThat(result.best().ratioToAllCores()).isEqualTo(result.best().mbPerSecond() / 2000.0);
  }

  @Test
  void gridHasOneConfigWithoutPrefetchForZeroWorkersPerPinning() {
    Sweep sweep =
        Sweep.builder()
            .workers(List.of(0, 2, 2))
            .prefetchFactors(List.of(2, 4))
            .pinMemory(List.of(false, true))
            .build();

    assertThat(sweep.configs())
        .containsExactly(
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
    assertThatThrownBy(() -> Sweep.builder().repeats(0)).hasMessage("repeats: 0 (expected: > 0)");
    assertThatThrownBy(() -> new SweepConfig(0, 2, false))
        .hasMessageContaining("expected: a prefetch factor exactly when workers > 0");
  }
}
