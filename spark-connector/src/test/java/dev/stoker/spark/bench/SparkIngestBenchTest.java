package dev.stoker.spark.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark runs end to end on a tiny DataFrame; its figures are for the CLI, not tested. */
class SparkIngestBenchTest {

  @Test
  void shouldFeedTheSameDataFrameThroughBothPathsAndReportMedians() {
    List<String> progress = new ArrayList<>();
    SparkIngestResult result = new SparkIngestBench(
        new SparkIngestBench.Config(2_000, 16, 32, 2, 2, 1, 1), progress::add).run();

    assertThat(progress).hasSize(3).first().asString().startsWith("writing 2,000 rows");
    assertThat(result.inputPartitions()).isEqualTo(2);
    assertThat(result.stokerWork()).hasSize(1).doesNotContain(0.0);
    assertThat(result.baselineWork()).hasSize(1).doesNotContain(0.0);
    assertThat(result.json()).contains("\"workload\": \"spark\"", "\"rows\": 2000",
        "\"ranks\": 2", "\"epochs\": 2", "\"stoker_rows_per_s\": ", "\"baseline_rows_per_s\": ");
    assertThat(result.text()).contains("workload spark: 2,000 rows of float32[16]");
  }
}
