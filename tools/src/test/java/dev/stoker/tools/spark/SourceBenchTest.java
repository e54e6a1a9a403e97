package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The spark-source benchmark runs both reads to the same batches and reports them; no timing. */
class SourceBenchTest {

  @Test
  void shouldReadTheSameBatchesBothWaysAndReportThem() {
    StringWriter progress = new StringWriter();
    SourceBenchResult result =
        SourceBench.run(
            new SourceBench.Config(3000, 16, 2, 64, 1), new PrintWriter(progress, true));
    StringWriter report = new StringWriter();
    result.print(new PrintWriter(report, true));

    assertThat(result.rowsPerRun()).isEqualTo(2 * 23 * 64);
    assertThat(result.batchesPerRun()).isEqualTo(2 * 23);
    assertThat(result.stokerSeconds()).hasSize(1);
    assertThat(result.baselineSeconds()).hasSize(1);
    assertThat(result.stokerRowsPerSecond()).isPositive();
    assertThat(progress.toString()).contains("wrote 3,000 rows of 16 floats", "warm-up", "run 1/1");
    assertThat(report.toString())
        .contains(
            "workload spark-source", "format(\"stoker\")", "parquet + repartition + batching rows");
    assertThat(result.json())
        .contains(
            "\"workload\": \"spark-source\"",
            "\"rows\": 3000",
            "\"ranks\": 2",
            "\"stoker_rows_per_s\": ",
            "\"baseline_rows_per_s\": ",
            "\"speedup\": ");
  }

  @Test
  void shouldRefuseFewerRowsThanOneStep() {
    assertThatThrownBy(() -> new SourceBench.Config(100, 16, 2, 64, 1))
        .hasMessage(
            "rows: 100 (expected: at least ranks x batchSize = 128, for a full batch on "
                + "every rank; give more rows, or fewer ranks or a smaller batch)");
  }
}
