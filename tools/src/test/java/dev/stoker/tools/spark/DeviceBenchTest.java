package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.spark.DeviceFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The spark-device benchmark runs both paths to the same batches and reports them; no timing. */
class DeviceBenchTest {

  @Test
  void shouldRunTheDevicePathAndTheReadAloneToTheSameBatchesAndTimeTheFirstBatch() {
    StringWriter progress = new StringWriter();
    DeviceBenchResult result =
        DeviceBench.run(
            new DeviceBench.Config(3000, 16, 2, 64, 1, 1),
            DeviceFactory.CPU,
            new PrintWriter(progress, true));
    StringWriter report = new StringWriter();
    result.print(new PrintWriter(report, true));

    assertThat(result.rowsPerRun()).isEqualTo(2 * 23 * 64);
    assertThat(result.batchesPerRun()).isEqualTo(2 * 23);
    assertThat(result.device()).isEqualTo("cpu");
    assertThat(result.stokerSeconds()).hasSize(1);
    assertThat(result.readSeconds()).hasSize(1);
    double run = result.stokerSeconds().get(0);
    double firstBatch = result.firstBatchSeconds().get(0);
    assertThat(firstBatch).isPositive().isLessThan(run);
    assertThat(result.firstBatchFromCallSeconds().get(0))
        .isGreaterThanOrEqualTo(firstBatch)
        .isLessThan(run);
    assertThat(progress.toString())
        .contains(
            "wrote 3,000 rows of 16 floats", "warm-up", "run 1/1", "device path", "read alone");
    assertThat(report.toString())
        .contains(
            "workload spark-device",
            "format(\"stoker\") -> StokerSpark -> loader on cpu",
            "format(\"stoker\") read alone",
            "device path / read alone: ");
    Map<String, String> json = SparkIngestBenchTest.fields(result.json());
    assertThat(json)
        .containsEntry("workload", "\"spark-device\"")
        .containsEntry("rows", "3000")
        .containsEntry("ranks", "2")
        .containsEntry("device", "\"cpu\"")
        .containsEntry("first_batch_s", String.format(Locale.ROOT, "%.3f", firstBatch))
        .containsKeys(
            "stoker_rows_per_s",
            "read_rows_per_s",
            "ratio",
            "stoker_seconds",
            "read_seconds",
            "first_batch_runs",
            "first_batch_from_call_s");
    assertThat(Double.parseDouble(json.get("stoker_rows_per_s"))).isPositive();
    assertThat(Double.parseDouble(json.get("read_rows_per_s"))).isPositive();
  }

  @Test
  void shouldRefuseFewerRowsThanOneStepAndNegativeWorkers() {
    assertThatThrownBy(() -> new DeviceBench.Config(100, 16, 2, 64, 1, 0))
        .hasMessage(
            "rows: 100 (expected: at least ranks x batchSize = 128, for a full batch on "
                + "every rank; give more rows, or fewer ranks or a smaller batch)");
    assertThatThrownBy(() -> new DeviceBench.Config(1000, 16, 2, 64, 1, -1))
        .hasMessage("numWorkers: -1 (expected: >= 0)");
  }
}
