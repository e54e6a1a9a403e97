package dev.stoker.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemcpyBaselineTest {

  @Test
  void measuresAPositiveBandwidth() {
    assertThat(MemcpyBaseline.measure()).isPositive().isFinite();
  }

  @Test
  void measuresOneThreadAndSeveralSideBySide() {
    MemcpyLimits limits = MemcpyBaseline.measureLimits(49_152, 64, 3, 2);

    assertThat(limits.threads()).isEqualTo(2);
    assertThat(limits.oneThreadMbPerSecond()).isPositive().isFinite();
    assertThat(limits.allCoresMbPerSecond()).isPositive().isFinite();
    assertThat(limits.ratioToAllCores(limits.allCoresMbPerSecond())).isEqualTo(1.0);
  }

  @Test
  void allCoresUsesOneThreadPerCore() {
    MemcpyLimits limits = MemcpyBaseline.measureLimits(49_152, 64, 1);

    assertThat(limits.threads()).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().startsWith("stoker-memcpy-"));
  }

  @Test
  void aMeterMeasuresAgainOnItsSourceUntilClosed() {
    MemcpyMeter meter = MemcpyBaseline.meter(49_152, 64);
    MemcpyLimits first = meter.measure(1);
    MemcpyLimits second = meter.measure(1);
    meter.close();
    meter.close();

    assertThat(first.oneThreadMbPerSecond()).isPositive();
    assertThat(second.allCoresMbPerSecond()).isPositive();
    assertThat(second.threads()).isEqualTo(meter.threads());
    assertThatThrownBy(() -> meter.measure(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the memcpy meter is closed");
  }

  @Test
  void limitsWithOnlyTheOneThreadFigureGiveNaNToAllCores() {
    MemcpyLimits limits = MemcpyLimits.oneThread(1000.0);

    assertThat(limits.ratioToOneThread(500.0)).isEqualTo(0.5);
    assertThat(limits.ratioToAllCores(500.0)).isNaN();
  }

  @Test
  void badArgumentsAreRejected() {
    assertThatThrownBy(() -> MemcpyBaseline.measure(0, 64, 3))
        .hasMessage("sampleBytes: 0, batchSize: 64, rounds: 3 (expected: all > 0)");
    assertThatThrownBy(() -> MemcpyBaseline.measureAllCores(49_152, 64, 0))
        .hasMessage("sampleBytes: 49152, batchSize: 64, rounds: 0 (expected: all > 0)");
    assertThatThrownBy(() -> MemcpyBaseline.measureLimits(49_152, 64, 3, 0))
        .hasMessage("threads: 0 (expected: > 0)");
  }
}
