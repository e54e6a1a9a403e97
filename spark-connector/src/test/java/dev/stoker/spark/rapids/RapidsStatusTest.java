package dev.stoker.spark.rapids;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.DType;
import dev.stoker.spark.RapidsStatus;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.testing.SparkClusters;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** RAPIDS is found from the session's configuration and class path, without its jars. */
class RapidsStatusTest {

  @Test
  void shouldBeActiveOnlyWhenThePluginIsNamedLoadableAndEnabled() {
    Map<String, String> named = Map.of(RapidsDetection.PLUGINS, "a.B, com.nvidia.spark.SQLPlugin");
    assertThat(status(RapidsDetection.of(named, name -> true)).active()).isTrue();
    assertThat(status(RapidsDetection.of(named, name -> false)).summary())
        .isEqualTo(
            "configured but not loadable (com.nvidia.spark.SQLPlugin is not on the "
                + "driver's class path)");
    assertThat(
            status(
                    RapidsDetection.of(
                        Map.of(
                            RapidsDetection.PLUGINS,
                            "com.nvidia.spark.SQLPlugin",
                            RapidsDetection.SQL_ENABLED,
                            "FALSE"),
                        name -> true))
                .summary())
        .isEqualTo(
            "configured but off (spark.rapids.sql.enabled=false or "
                + "spark.rapids.sql.mode=explainOnly)");
    assertThat(
            status(
                    RapidsDetection.of(
                        Map.of(
                            RapidsDetection.PLUGINS,
                            "com.nvidia.spark.SQLPlugin",
                            RapidsDetection.SQL_MODE,
                            "explainOnly"),
                        name -> true))
                .active())
        .isFalse();
    assertThat(status(RapidsDetection.of(Map.of(), name -> true)).summary())
        .isEqualTo("not in use (spark.plugins does not name com.nvidia.spark.SQLPlugin)");
  }

  @Test
  void shouldSayInTheLoadReportWhenTheSessionRunsThePlugin() {
    SparkSession spark =
        SparkClusters.local(2, Map.of(RapidsDetection.PLUGINS, RapidsDetection.PLUGIN_CLASS));
    try {
      assertThat(status(RapidsDetection.of(spark)).active()).isTrue();
      spark.conf().set(RapidsDetection.SQL_ENABLED, "false");
      assertThat(status(RapidsDetection.of(spark)).active()).isFalse();
      spark.conf().unset(RapidsDetection.SQL_ENABLED);
      TrainingResult<Integer> run =
          StokerSpark.on(spark.range(0, 8, 1, 2).toDF())
              .scalar("id", DType.INT64)
              .option("batchSize", "2")
              .worldSize(2)
              .run((rank, loader) -> rank.rank());
      assertThat(run.report().rapids().active()).isTrue();
      assertThat(run.report().toString())
          .contains(
              "RAPIDS Accelerator active: the DataFrame's "
                  + "plan runs on GPUs and its rows reach Stoker through RAPIDS' columnar-to-row "
                  + "transition");
    } finally {
      spark.stop();
    }
  }

  private static RapidsStatus status(RapidsDetection.Found found) {
    return new RapidsStatus(found.configured(), found.loadable(), found.sqlEnabled());
  }
}
