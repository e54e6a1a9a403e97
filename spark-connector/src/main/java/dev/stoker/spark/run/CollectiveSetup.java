package dev.stoker.spark.run;

import dev.stoker.spark.collective.ListenOn;
import dev.stoker.spark.options.OptionRegistry;
import dev.stoker.spark.options.SparkOptionTable;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;

/**
 * How a rank sets up the collective from its executor's Spark settings: where rank 0 listens. (Its
 * frames are always encrypted, whatever {@code spark.network.crypto.enabled} says.)
 *
 * <p>Rank 0 listens on one address, never on every interface. In local mode (the executor is the
 * driver) every rank runs in this JVM, so it is the loopback. On a cluster it is the address this
 * executor uses to reach the driver, the local end of the route to {@code spark.driver.host} (asked
 * of the routing table with an unconnected UDP socket: no packet is sent): the executors already
 * talk to the driver over that network, so it is the cluster's network, not whatever interface the
 * machine's name resolves to. If that cannot be found, the block manager's host.
 *
 * <p>Both can be pinned, as {@code spark.driver.host} and {@code spark.driver.port} pin the
 * driver's: {@link #INTERFACE_OPTION} names the network interface every executor listens on (its
 * first IPv4 address, e.g. {@code eth1} for a cluster's second network), and {@value
 * ListenOn#PORTS_OPTION} the ports (first-last) a firewall lets through between the executors: each
 * rank takes the first free one for its ring listener, and rank 0 one more for the star.
 */
public final class CollectiveSetup {
  /** The Spark setting naming the network interface the collective listens on. */
  public static final String INTERFACE_OPTION =
      OptionRegistry.setting(SparkOptionTable.COLLECTIVE_INTERFACE);

  private CollectiveSetup() {}

  /** Where the ranks of the collective listen on this executor: its address and ports. */
  public static ListenOn listenOn(SparkEnv env) {
    if (env == null) {
      return ListenOn.any(listenHost(env));
    }
    return listenOn(env.conf(), () -> listenHost(env));
  }

  static ListenOn listenOn(SparkConf conf, java.util.function.Supplier<String> defaultHost) {
    String name = conf.get(INTERFACE_OPTION, "").trim();
    String host = name.isEmpty() ? defaultHost.get() : interfaceAddress(name);
    return ListenOn.parse(
        host, conf.get(ListenOn.PORTS_OPTION, SparkOptionTable.COLLECTIVE_PORTS.defaultValue()));
  }

  /** The first IPv4 address of the interface {@code name} (else its first), for listening. */
  static String interfaceAddress(String name) {
    NetworkInterface found;
    List<String> names = new ArrayList<>();
    try {
      found = NetworkInterface.getByName(name);
      for (NetworkInterface one : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        names.add(one.getName());
      }
    } catch (SocketException e) {
      throw new IllegalStateException(
          INTERFACE_OPTION
              + ": '"
              + name
              + "': the interfaces of "
              + "this executor cannot be listed: "
              + e,
          e);
    }
    List<InetAddress> addresses =
        found == null ? List.of() : Collections.list(found.getInetAddresses());
    if (addresses.isEmpty()) {
      Collections.sort(names);
      throw new IllegalArgumentException(
          INTERFACE_OPTION
              + ": '"
              + name
              + "' "
              + (found == null ? "is not an interface of this executor" : "has no address")
              + " (its interfaces: "
              + String.join(", ", names)
              + "; expected: the interface of "
              + "the network the executors share, on every executor)");
    }
    for (InetAddress address : addresses) {
      if (address instanceof Inet4Address) {
        return address.getHostAddress();
      }
    }
    String address = addresses.get(0).getHostAddress();
    int zone = address.indexOf('%');
    return zone < 0 ? address : address.substring(0, zone);
  }

  /** The address rank 0 of the collective listens on, on this executor. */
  public static String listenHost(SparkEnv env) {
    if (env == null) {
      return InetAddress.getLoopbackAddress().getHostAddress();
    }
    String blockManagerHost =
        env.blockManager() != null && env.blockManager().blockManagerId() != null
            ? env.blockManager().blockManagerId().host()
            : null;
    return listenHost(env.executorId(), env.conf(), blockManagerHost);
  }

  public static String listenHost(String executorId, SparkConf conf, String blockManagerHost) {
    if ("driver".equals(executorId)) {
      return InetAddress.getLoopbackAddress().getHostAddress();
    }
    String route =
        routeTo(conf.get("spark.driver.host", null), conf.getInt("spark.driver.port", 0));
    if (route != null) {
      return route;
    }
    return blockManagerHost != null
        ? blockManagerHost
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
