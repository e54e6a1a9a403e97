package dev.stoker.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.spark.collective.ListenOn;
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
    SparkConf conf =
        new SparkConf(false).set("spark.driver.host", "127.0.0.1").set("spark.driver.port", "7078");
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

  @Test
  void shouldListenOnTheNamedInterfaceAndThePinnedPorts() {
    SparkConf conf =
        new SparkConf(false)
            .set(CollectiveSetup.INTERFACE_OPTION, "lo")
            .set(ListenOn.PORTS_OPTION, "41000-41015");
    assertThat(CollectiveSetup.listenOn(conf, () -> "203.0.113.7"))
        .isEqualTo(new ListenOn("127.0.0.1", 41000, 41015));
    assertThat(CollectiveSetup.listenOn(new SparkConf(false), () -> "203.0.113.7"))
        .isEqualTo(ListenOn.any("203.0.113.7"));
  }

  @Test
  void shouldNameTheInterfacesWhenTheNamedOneIsMissing() {
    SparkConf conf = new SparkConf(false).set(CollectiveSetup.INTERFACE_OPTION, "eth-none");
    assertThatThrownBy(() -> CollectiveSetup.listenOn(conf, () -> "203.0.113.7"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "spark.stoker.collective.interface: 'eth-none' is not an "
                + "interface of this executor (its interfaces: ")
        .hasMessageContaining("lo")
        .hasMessageEndingWith(
            "; expected: the interface of the network the executors share, "
                + "on every executor)");
  }

  @Test
  void shouldRefusePortsThatAreNoRange() {
    SparkConf conf = new SparkConf(false).set(ListenOn.PORTS_OPTION, "41015-41000");
    assertThatThrownBy(() -> CollectiveSetup.listenOn(conf, () -> "127.0.0.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "spark.stoker.collective.ports: 41015-41000 (expected: first-last with 1 <= "
                + "first <= last <= 65535, or 0 for any free port)");
    SparkConf words = new SparkConf(false).set(ListenOn.PORTS_OPTION, "high");
    assertThatThrownBy(() -> CollectiveSetup.listenOn(words, () -> "127.0.0.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "spark.stoker.collective.ports: 'high' (expected: first-last, e.g. "
                + "41000-41015, one port, or 0 for any free port)");
  }
}
