package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The benchmark runs end to end on a tiny DataFrame; its figures are for the CLI, not tested. */
class SparkIngestBenchTest {

  @Test
  void shouldFeedTheSameDataFrameThroughBothPathsAndReportMedians() {
    List<String> progress = new ArrayList<>();
    SparkIngestResult result =
        new SparkIngestBench(new SparkIngestBench.Config(2_000, 16, 32, 2, 2, 1, 1), progress::add)
            .run();

    assertThat(progress).hasSize(3).first().asString().startsWith("writing 2,000 rows");
    assertThat(result.inputPartitions()).isEqualTo(2);
    assertThat(result.stokerWork()).hasSize(1).doesNotContain(0.0);
    assertThat(result.baselineWork()).hasSize(1).doesNotContain(0.0);
    assertThat(result.json())
        .contains(
            "\"workload\": \"spark\"",
            "\"rows\": 2000",
            "\"ranks\": 2",
            "\"epochs\": 2",
            "\"stoker_rows_per_s\": ",
            "\"baseline_rows_per_s\": ");
    assertThat(result.text())
        .contains("workload spark: 2,000 rows of float32[16]", "after the ranks' stage started");
    double firstBatch = result.firstBatchSeconds()[0];
    assertThat(firstBatch).isPositive().isLessThan(result.stokerRunSeconds()[0]);
    assertThat(result.firstBatchFromCallSeconds()[0])
        .isGreaterThanOrEqualTo(firstBatch)
        .isLessThan(result.stokerRunSeconds()[0]);
    assertThat(fields(result.json()))
        .containsEntry("rows", "2000")
        .containsEntry("first_batch_s", String.format(Locale.ROOT, "%.3f", firstBatch))
        .containsKeys("first_batch_from_call_s", "first_batch_runs", "stoker_run_seconds");
  }

  @Test
  void shouldRefuseFewerRowsThanAFullBatchOnEveryRank() {
    assertThatThrownBy(() -> new SparkIngestBench.Config(100, 16, 64, 2, 1, 1, 0))
        .hasMessage(
            "rows: 100 (expected: at least ranks x batchSize = 128, for a full batch on "
                + "every rank; give more rows, or fewer ranks or a smaller batch)");
  }

  /** The top-level fields of the benchmark's flat JSON, as text. */
  static Map<String, String> fields(String json) {
    Map<String, String> fields = new LinkedHashMap<>();
    Matcher m = Pattern.compile("\"(\\w+)\": (\\[[^\\]]*\\]|\"[^\"]*\"|[^,\\n]+)").matcher(json);
    while (m.find()) {
      fields.put(m.group(1), m.group(2));
    }
    return fields;
  }
}
