package dev.stoker.spark.collective;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * Connects the ranks in a star around rank 0, with one rendezvous through Spark's barrier channel:
 * rank 0 listens and tells every rank where, with the meeting's secret (from {@link
 * MeetingCrypto}); the secret never crosses the collective's socket. A rank connects and says hello
 * (its rank, the stage attempt, a nonce); rank 0 answers with a nonce of its own; the rank proves
 * that it holds the secret; once every rank is in, rank 0 welcomes each with its own proof, and
 * both sides encrypt and authenticate every later frame with the connection's keys ({@link
 * FrameSeal}). Every rank takes part in the rendezvous even when rank 0 could not listen, so that
 * none is left waiting in it; the whole meeting ends at one deadline.
 */
final class StarConnector {
  static final int MAGIC = 0x53544b03;
  static final int OK = 0;
  static final int ERROR = 1;
  static final int HELLO_BYTES = 12 + MeetingCrypto.NONCE_BYTES;

  /** The longest message an error answer may carry. */
  static final int MAX_MESSAGE_BYTES = 1 << 16;

  private static final String FAILED = "failed:";

  /** Separates rank 0's secret from what its message says after it (not in Base64). */
  static final char EXTRA = ' ';

  private StarConnector() {}

  /**
   * What a rank learned in the star's meeting: its links (rank 0: to ranks 1 .. worldSize - 1,
   * index = rank - 1; another rank: to rank 0), the meeting's secret and every rank's message of
   * the rendezvous.
   */
  record Meeting(Link[] links, byte[] secret, String[] messages) {}

  /**
   * Rank 0's side: listens on {@code listenOn}, says where and the secret in the rendezvous (and
   * {@code extra} after the secret, if not empty), and takes every other rank's connection.
   */
  static Meeting root(
      int worldSize,
      int attempt,
      ListenOn listenOn,
      String extra,
      Rendezvous rendezvous,
      Waits waits,
      long deadline,
      List<String> refusals) {
    ServerSocketChannel server = null;
    byte[] secret = MeetingCrypto.secret();
    String address;
    String host = listenOn.host();
    try {
      server = listenOn.bind(Math.max(worldSize, 128)); // room for the ranks while strangers come
      int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
      address =
          host
              + ":"
              + port
              + ":"
              + Base64.getEncoder().encodeToString(secret)
              + (extra.isEmpty() ? "" : EXTRA + extra);
    } catch (IOException | RuntimeException e) {
      closeQuietly(server);
      String why = "rank 0 could not listen on " + listenOn + ": " + e;
      rendezvous.allGather(FAILED + why);
      throw new CollectiveException(
          why
              + " (expected: an address of this executor that the "
              + "other executors can reach"
              + listenOn.remedy()
              + ")",
          e);
    }
    try (ServerSocketChannel listening = server) {
      String[] messages = rendezvous.allGather(address);
      return new Meeting(
          new StarListener(worldSize, attempt, secret, waits, deadline, refusals).accept(listening),
          secret,
          messages);
    } catch (IOException e) {
      throw new CollectiveException("rank 0: accepting the other ranks failed: " + e, e);
    }
  }

  /** The secret in rank 0's message {@code address} (which did not fail). */
  static byte[] secretIn(String address) {
    int end = address.indexOf(EXTRA) < 0 ? address.length() : address.indexOf(EXTRA);
    return Base64.getDecoder().decode(address.substring(address.lastIndexOf(':', end) + 1, end));
  }

  /** The host in rank 0's message {@code address}. */
  static String hostIn(String address) {
    int secretAt =
        address.lastIndexOf(
            ':', address.indexOf(EXTRA) < 0 ? address.length() : address.indexOf(EXTRA));
    return address.substring(0, address.lastIndexOf(':', secretAt - 1));
  }

  /** A rank other than 0: its link to rank 0, which said {@code address} in the rendezvous. */
  static Link peer(int rank, int attempt, String address, Waits waits, long deadline) {
    if (address.startsWith(FAILED)) {
      throw new CollectiveException("rank " + rank + ": " + address.substring(FAILED.length()));
    }
    int end = address.indexOf(EXTRA) < 0 ? address.length() : address.indexOf(EXTRA);
    int secretAt = address.lastIndexOf(':', end);
    int portAt = address.lastIndexOf(':', secretAt - 1);
    String host = address.substring(0, portAt);
    int port = Integer.parseInt(address.substring(portAt + 1, secretAt));
    byte[] secret = Base64.getDecoder().decode(address.substring(secretAt + 1, end));
    return join(rank, 0, attempt, host, port, secret, waits, deadline);
  }

  /** What rank 0's message says after its secret (e.g. where its ring listens), or "". */
  static String extraOf(String address) {
    int extra = address.indexOf(EXTRA);
    return extra < 0 ? "" : address.substring(extra + 1);
  }

  /**
   * Rank {@code rank}'s link to rank {@code target}, which listens at {@code host:port}: says
   * hello, proves that it holds {@code secret}, checks {@code target}'s proof, and seals.
   */
  static Link join(
      int rank,
      int target,
      int attempt,
      String host,
      int port,
      byte[] secret,
      Waits waits,
      long deadline) {
    String what = "rank " + rank + " connecting to rank " + target + " at " + host + ":" + port;
    Link link = connect(rank, target, host, port, waits, deadline);
    try {
      byte[] peerNonce = MeetingCrypto.nonce();
      link.writeBefore(
          what,
          deadline,
          ByteBuffer.allocate(HELLO_BYTES)
              .order(ByteOrder.LITTLE_ENDIAN)
              .putInt(MAGIC)
              .putInt(rank)
              .putInt(attempt)
              .put(peerNonce)
              .flip());
      byte[] rootNonce = new byte[MeetingCrypto.NONCE_BYTES];
      link.readBefore(ByteBuffer.wrap(rootNonce), what, deadline);
      byte[] transcript = MeetingCrypto.transcript(rank, attempt, peerNonce, rootNonce);
      link.writeBefore(
          what, deadline, ByteBuffer.wrap(MeetingCrypto.peerProof(secret, transcript)));
      byte[] welcome = new byte[MeetingCrypto.PROOF_BYTES];
      link.readBefore(ByteBuffer.wrap(welcome), what, deadline);
      if (!MeetingCrypto.same(MeetingCrypto.rootProof(secret, transcript), welcome)) {
        throw new CollectiveException(
            what
                + ": "
                + link.who()
                + " does not prove that it holds "
                + "the meeting's secret (expected: rank "
                + target
                + " of this stage attempt; is "
                + "something else answering at its address?)");
      }
      FrameSeal[] seals = MeetingCrypto.seals(secret, transcript);
      link.seal(seals[0], seals[1]);
      return link;
    } catch (RuntimeException | Error e) {
      closeQuietly(link);
      throw e;
    }
  }

  private static Link connect(
      int rank, int target, String host, int port, Waits waits, long deadline) {
    SocketChannel channel = null;
    try {
      channel = SocketChannel.open();
      int millis = deadline == Waits.NONE ? 0 : (int) Waits.millisLeft(deadline, Integer.MAX_VALUE);
      channel.socket().connect(new InetSocketAddress(host, port), millis);
      return new Link(target, channel, waits);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new CollectiveException(
          "rank "
              + rank
              + " could not connect to rank "
              + target
              + " at "
              + host
              + ":"
              + port
              + ": "
              + e
              + " (expected: executors that reach each "
              + "other over TCP; a firewall between them must let the collective's ports through: "
              + "see "
              + ListenOn.PORTS_OPTION
              + ")",
          e);
    } catch (RuntimeException | Error e) {
      closeQuietly(channel);
      throw e;
    }
  }

  /** A status and a message: what rank 0 answers a call. */
  static ByteBuffer reply(int status, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(text.length, MAX_MESSAGE_BYTES);
    return ByteBuffer.allocate(8 + length)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(status)
        .putInt(length)
        .put(text, 0, length)
        .flip();
  }

  static void closeQuietly(AutoCloseable closeable) {
    if (closeable != null) {
      try {
        closeable.close();
      } catch (Exception e) {
        // closing after a failure: the failure is what the caller reports
      }
    }
  }
}
