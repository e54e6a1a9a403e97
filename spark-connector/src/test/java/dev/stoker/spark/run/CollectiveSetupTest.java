package dev.stoker.spark.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** Where rank 0 listens, from an executor's settings. */
class CollectiveSetupTest {
  @Test
  void shouldListenOnTheLoopbackInLocalMode() {
    SparkConf conf = new SparkConf(false).set("spark.driver.host", "127.0.0.1");
    assertThat(CollectiveSetup.listenHost("driver", conf, "203.0.113.7")).isEqualTo("127.0.0.1");
  }

  @Test
  void shouldListenOnTheAddressThatReachesTheDriverOnACluster() {
    SparkConf conf = new SparkConf(false).set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.port", "7078");
    // not the block manager's host: the local end of the route to the driver
    assertThat(CollectiveSetup.listenHost("3", conf, "203.0.113.7")).isEqualTo("127.0.0.1");
  }

  @Test
  void shouldFallBackToTheBlockManagersHostWithoutARouteToTheDriver() {
    SparkConf conf = new SparkConf(false).set("spark.driver.host", "no-such-host.invalid");
    assertThat(CollectiveSetup.listenHost("3", conf, "203.0.113.7")).isEqualTo("203.0.113.7");
    assertThat(CollectiveSetup.listenHost("3", new SparkConf(false), "203.0.113.7"))
        .isEqualTo("203.0.113.7");
  }
}
