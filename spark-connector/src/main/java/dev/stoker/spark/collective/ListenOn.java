package dev.stoker.spark.collective;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Objects;

/**
 * Where a rank listens for its peers: one address of its machine (never every interface) and the
 * ports it may take, the first free one in {@code firstPort .. lastPort}; 0 .. 0 lets the system
 * choose. Rank 0 listens once for the star, and every rank once for its predecessor in the ring,
 * each only until the ranks have met.
 *
 * @param host an address of this machine that the other ranks can reach
 * @param firstPort the first port to try, or 0 for any free port
 * @param lastPort the last port to try (0 with {@code firstPort} 0)
 */
public record ListenOn(String host, int firstPort, int lastPort) {
  /**
   * The Spark setting that pins the collective's ports: "first-last", e.g. 41000-41015. Written
   * here, since the collective imports nothing of the connector; the connector's table of options
   * documents it under the same name.
   */
  public static final String PORTS_OPTION = "spark.stoker.collective.ports";

  public ListenOn {
    Objects.requireNonNull(host, "host");
    if (firstPort == 0
        ? lastPort != 0
        : firstPort < 1 || lastPort < firstPort || lastPort > 65535) {
      throw new IllegalArgumentException(
          PORTS_OPTION
              + ": "
              + firstPort
              + "-"
              + lastPort
              + " (expected: first-last with 1 <= first <= last <= 65535, or 0 for any free port)");
    }
  }

  /** Any free port of {@code host}. */
  public static ListenOn any(String host) {
    return new ListenOn(host, 0, 0);
  }

  /** The ports a {@link #PORTS_OPTION} value names: "41000-41015", "41000", or "0". */
  public static ListenOn parse(String host, String ports) {
    String text = ports.trim();
    int dash = text.indexOf('-');
    try {
      int first = Integer.parseInt((dash < 0 ? text : text.substring(0, dash)).trim());
      int last = dash < 0 ? first : Integer.parseInt(text.substring(dash + 1).trim());
      return new ListenOn(host, first, last);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          PORTS_OPTION
              + ": '"
              + ports
              + "' (expected: "
              + "first-last, e.g. 41000-41015, one port, or 0 for any free port)",
          e);
    }
  }

  /** A server socket on {@link #host} at the first free port; the caller closes it. */
  ServerSocketChannel bind(int backlog) throws IOException {
    int first = firstPort;
    int last = firstPort == 0 ? 0 : lastPort;
    for (int port = first; ; port++) {
      ServerSocketChannel server = ServerSocketChannel.open();
      try {
        server.bind(new InetSocketAddress(host, port), backlog);
        return server;
      } catch (BindException e) {
        server.close();
        if (port >= last) {
          throw first == last
              ? e
              : new BindException("every port of " + first + "-" + last + " is taken");
        }
      } catch (IOException | RuntimeException e) {
        server.close();
        throw e;
      }
    }
  }

  /** How to get out of a failure to listen, for an error message: "" or "; widen ...". */
  String remedy() {
    return firstPort == 0
        ? ""
        : "; free a port of " + firstPort + "-" + lastPort + " or widen " + PORTS_OPTION;
  }

  @Override
  public String toString() {
    return host
        + (firstPort == 0
            ? ""
            : " (ports " + firstPort + (lastPort == firstPort ? "" : "-" + lastPort) + ")");
  }
}
