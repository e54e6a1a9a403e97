package dev.stoker.spark.run;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;

/**
 * How a rank sets up the collective from its executor's Spark settings: where rank 0 listens.
 * (Its frames are always encrypted, whatever {@code spark.network.crypto.enabled} says.)
 *
 * <p>Rank 0 listens on one address, never on every interface. In local mode (the executor is the
 * driver) every rank runs in this JVM, so it is the loopback. On a cluster it is the address this
 * executor uses to reach the driver, the local end of the route to {@code spark.driver.host}
 * (asked of the routing table with an unconnected UDP socket: no packet is sent): the executors
 * already talk to the driver over that network, so it is the cluster's network, not whatever
 * interface the machine's name resolves to. If that cannot be found, the block manager's host.
 */
public final class CollectiveSetup {
  private CollectiveSetup() {}

  /** The address rank 0 of the collective listens on, on this executor. */
  public static String listenHost(SparkEnv env) {
    if (env == null) {
      return InetAddress.getLoopbackAddress().getHostAddress();
    }
    String blockManagerHost = env.blockManager() != null
        && env.blockManager().blockManagerId() != null
        ? env.blockManager().blockManagerId().host() : null;
    return listenHost(env.executorId(), env.conf(), blockManagerHost);
  }

  public static String listenHost(String executorId, SparkConf conf, String blockManagerHost) {
    if ("driver".equals(executorId)) {
      return InetAddress.getLoopbackAddress().getHostAddress();
    }
    String route = routeTo(conf.get("spark.driver.host", null),
        conf.getInt("spark.driver.port", 0));
    if (route != null) {
      return route;
    }
    return blockManagerHost != null ? blockManagerHost
        : InetAddress.getLoopbackAddress().getHostAddress();
  }

  /** The local address of the route to {@code host}, or null if there is none. */
  static String routeTo(String host, int port) {
    if (host == null || host.isBlank()) {
      return null;
    }
    try (DatagramSocket socket = new DatagramSocket()) {
      socket.connect(new InetSocketAddress(InetAddress.getByName(host), port > 0 ? port : 9));
      InetAddress local = socket.getLocalAddress();
      return local == null || local.isAnyLocalAddress() ? null : local.getHostAddress();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
