package dev.stoker.spark.collective;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.List;

/**
 * Connects every rank to its successor in the ring (rank + 1, and the last rank to rank 0), with
 * the star's handshake and frames: each rank listens for its predecessor, says where in the star's
 * rendezvous, and, once the star is up, connects to its successor and proves that it holds the
 * ring's secret (derived from the meeting's, so that no proof or key of the star can serve in the
 * ring or the other way round). A rank sends only on the link to its successor and receives only on
 * the link from its predecessor. Rank 0 first takes its predecessor's connection and then connects;
 * every other rank the other way round: so the ranks never all wait on each other, and the ring
 * closes one link after another within the meeting's deadline.
 */
final class RingConnector {
  private RingConnector() {}

  /** Where every rank but 0 listens for the ring, as said in the rendezvous: "host:port". */
  static String address(ServerSocketChannel server, String host) throws IOException {
    return host + ":" + ((InetSocketAddress) server.getLocalAddress()).getPort();
  }

  /** The ring's secret: not the star's, so that neither's proofs or keys serve in the other. */
  static byte[] secret(byte[] meetingSecret) {
    return MeetingCrypto.hmac(meetingSecret, "stoker collective: ring", new byte[0]);
  }

  /**
   * Rank {@code rank}'s two ring links, {next, previous}: the one it sends on and the one it
   * receives on. {@code addresses} are where each rank listens, index = rank ("host:port").
   */
  static Link[] connect(
      int rank,
      int worldSize,
      int attempt,
      ServerSocketChannel server,
      String[] addresses,
      byte[] meetingSecret,
      Waits waits,
      long deadline,
      List<String> refusals) {
    byte[] secret = secret(meetingSecret);
    int next = (rank + 1) % worldSize;
    int previous = (rank + worldSize - 1) % worldSize;
    Link sending = null;
    Link receiving = null;
    try {
      if (rank == 0) {
        receiving =
            accept(rank, previous, worldSize, attempt, server, secret, waits, deadline, refusals);
        sending = join(rank, next, attempt, addresses[next], secret, waits, deadline);
      } else {
        sending = join(rank, next, attempt, addresses[next], secret, waits, deadline);
        receiving =
            accept(rank, previous, worldSize, attempt, server, secret, waits, deadline, refusals);
      }
      return new Link[] {sending, receiving};
    } catch (RuntimeException | Error e) {
      StarConnector.closeQuietly(sending);
      StarConnector.closeQuietly(receiving);
      throw e;
    }
  }

  private static Link accept(
      int rank,
      int previous,
      int worldSize,
      int attempt,
      ServerSocketChannel server,
      byte[] secret,
      Waits waits,
      long deadline,
      List<String> refusals) {
    try {
      return new StarListener(
              rank,
              new int[] {previous},
              "the ring's meeting",
              worldSize,
              attempt,
              secret,
              waits,
              deadline,
              refusals)
          .accept(server)[0];
    } catch (IOException e) {
      throw new CollectiveException(
          "rank " + rank + ": accepting rank " + previous + " in the " + "ring failed: " + e, e);
    }
  }

  private static Link join(
      int rank, int next, int attempt, String address, byte[] secret, Waits waits, long deadline) {
    int portAt = address.lastIndexOf(':');
    return StarConnector.join(
        rank,
        next,
        attempt,
        address.substring(0, portAt),
        Integer.parseInt(address.substring(portAt + 1)),
        secret,
        waits,
        deadline);
  }
}
