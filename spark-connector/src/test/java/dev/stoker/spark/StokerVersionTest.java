package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.package$;
import org.junit.jupiter.api.Test;

class StokerVersionTest {

  @Test
  void shouldTellTheBuildsVersionsAndTheSparkItRunsWith() {
    assertThat(StokerVersion.version()).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    assertThat(StokerVersion.sparkVersion()).isEqualTo(package$.MODULE$.SPARK_VERSION());
    assertThat(StokerVersion.scalaVersion())
        .isEqualTo(System.getProperty("stoker.test.scala.version"));
    assertThat(StokerVersion.describe())
        .startsWith("stoker " + StokerVersion.version() + " (Spark ");
  }
}
