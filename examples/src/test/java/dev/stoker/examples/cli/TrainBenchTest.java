package dev.stoker.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The train workload's figures from the ranks' times: medians, ratio, verdict and JSON. */
class TrainBenchTest {

  private static TrainPass.Times rank(double stoker, double ceiling) {
    return new TrainPass.Times(
        new long[] {640, 640, 640},
        new double[] {stoker, stoker * 2, stoker},
        new double[] {ceiling, ceiling, ceiling * 3},
        1);
  }

  @Test
  void shouldRateEachRepeatBySamplesOverTheSlowestRank() {
    TrainBench.Result result =
        TrainBench.summarize(List.of(rank(1.0, 0.95), rank(1.25, 0.9)), 6400, 64, 1, 3);

    assertThat(result.stokerRuns()).containsExactly(1024, 512, 1024);
    assertThat(result.ceilingRuns()).containsExactly(1280 / 0.95, 1280 / 0.95, 1280 / (0.95 * 3));
    assertThat(result.stoker()).isEqualTo(1024);
    assertThat(result.ceiling()).isEqualTo(1280 / 0.95);
    assertThat(result.ratio()).isCloseTo(0.76, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(result.verdict()).isEqualTo("input-bound");
  }

  @Test
  void shouldCallAStepFedAtNineTenthsOfTheCeilingComputeBound() {
    TrainBench.Result result =
        TrainBench.summarize(List.of(rank(1.0, 0.9), rank(1.0, 0.9)), 6400, 64, 1, 3);

    assertThat(result.ratio()).isEqualTo(0.9);
    assertThat(result.verdict()).isEqualTo("compute-bound");
    assertThat(result.json())
        .contains(
            "\"workload\": \"train\"",
            "\"ranks\": 2",
            "\"stoker_samples_per_s\": 1280.0",
            "\"ceiling_samples_per_s\": 1422.2",
            "\"verdict\": \"compute-bound\"");
    assertThat(result.text()).contains("ratio 0.900 (kept fed at >= 0.9): compute-bound");
  }
}
