package dev.stoker.loader.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemcpyBaselineTest {

  @Test
  void measuresAPositiveBandwidth() {
    assertThat(MemcpyBaseline.measure()).isPositive().isFinite();
  }

  @Test
  void badArgumentsAreRejected() {
    assertThatThrownBy(() -> MemcpyBaseline.measure(0, 64, 3))
        .hasMessage("sampleBytes: 0, batchSize: 64, rounds: 3 (expected: all > 0)");
  }
}
