package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** The embedded Spark the connector's tests run on starts and runs a job. */
class SparkSmokeTest {

  @Test
  void shouldRunAJobOnTheEmbeddedSpark() {
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("smoke")
            .config("spark.ui.enabled", "false")
            .getOrCreate();
    try {
      assertThat(spark.range(1000).count()).isEqualTo(1000);
    } finally {
      spark.stop();
    }
  }
}
