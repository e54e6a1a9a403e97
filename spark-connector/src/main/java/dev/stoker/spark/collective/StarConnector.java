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
 * Connects the ranks in a star around rank 0, with one rendezvous through Spark's barrier
 * channel: rank 0 listens and tells every rank where, with the meeting's secret (from
 * {@link MeetingCrypto}); the secret never crosses the collective's socket. A rank connects and
 * says hello (its rank, the stage attempt, a nonce); rank 0 answers with a nonce of its own; the
 * rank proves that it holds the secret; once every rank is in, rank 0 welcomes each with its own
 * proof, and both sides encrypt and authenticate every later frame with the connection's keys
 * ({@link FrameSeal}). Every rank takes part in the rendezvous even when rank 0 could not listen,
 * so that none is left waiting in it; the whole meeting ends at one deadline.
 */
final class StarConnector {
  static final int MAGIC = 0x53544b03;
  static final int OK = 0;
  static final int ERROR = 1;
  static final int HELLO_BYTES = 12 + MeetingCrypto.NONCE_BYTES;
  /** The longest message an error answer may carry. */
  static final int MAX_MESSAGE_BYTES = 1 << 16;
  private static final String FAILED = "failed:";

  private StarConnector() {}

  /** Rank 0's side: the links to ranks 1 .. worldSize - 1, index = rank - 1. */
  static Link[] root(int worldSize, int attempt, String host, Rendezvous rendezvous,
      Waits waits, long deadline, List<String> refusals) {
    ServerSocketChannel server = null;
    byte[] secret = MeetingCrypto.secret();
    String address;
    try {
      server = ServerSocketChannel.open();
      // room in the queue for the ranks while strangers come and go
      server.bind(new InetSocketAddress(host, 0), Math.max(worldSize, 128));
      int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
      address = host + ":" + port + ":" + Base64.getEncoder().encodeToString(secret);
    } catch (IOException | RuntimeException e) {
      closeQuietly(server);
      String why = "rank 0 could not listen on " + host + ": " + e;
      rendezvous.allGather(FAILED + why);
      throw new CollectiveException(why + " (expected: an address of this executor that the "
          + "other executors can reach)", e);
    }
    try (ServerSocketChannel listening = server) {
      rendezvous.allGather(address);
      return new StarListener(worldSize, attempt, secret, waits, deadline, refusals)
          .accept(listening);
    } catch (IOException e) {
      throw new CollectiveException("rank 0: accepting the other ranks failed: " + e, e);
    }
  }

  /** A rank other than 0: its link to rank 0, proven both ways and sealed. */
  static Link peer(int rank, int attempt, Rendezvous rendezvous, Waits waits, long deadline) {
    String address = rendezvous.allGather("")[0];
    if (address.startsWith(FAILED)) {
      throw new CollectiveException("rank " + rank + ": " + address.substring(FAILED.length()));
    }
    int secretAt = address.lastIndexOf(':');
    int portAt = address.lastIndexOf(':', secretAt - 1);
    String host = address.substring(0, portAt);
    int port = Integer.parseInt(address.substring(portAt + 1, secretAt));
    byte[] secret = Base64.getDecoder().decode(address.substring(secretAt + 1));
    String what = "rank " + rank + " connecting to rank 0 at " + host + ":" + port;
    Link link = connect(rank, host, port, waits, deadline);
    try {
      byte[] peerNonce = MeetingCrypto.nonce();
      link.writeBefore(what, deadline, ByteBuffer.allocate(HELLO_BYTES)
          .order(ByteOrder.LITTLE_ENDIAN).putInt(MAGIC).putInt(rank).putInt(attempt)
          .put(peerNonce).flip());
      byte[] rootNonce = new byte[MeetingCrypto.NONCE_BYTES];
      link.readBefore(ByteBuffer.wrap(rootNonce), what, deadline);
      byte[] transcript = MeetingCrypto.transcript(rank, attempt, peerNonce, rootNonce);
      link.writeBefore(what, deadline,
          ByteBuffer.wrap(MeetingCrypto.peerProof(secret, transcript)));
      byte[] welcome = new byte[MeetingCrypto.PROOF_BYTES];
      link.readBefore(ByteBuffer.wrap(welcome), what, deadline);
      if (!MeetingCrypto.same(MeetingCrypto.rootProof(secret, transcript), welcome)) {
        throw new CollectiveException(what + ": " + link.who() + " does not prove that it holds "
            + "the meeting's secret (expected: rank 0 of this stage attempt; is something else "
            + "answering at its address?)");
      }
      FrameSeal[] seals = MeetingCrypto.seals(secret, transcript);
      link.seal(seals[0], seals[1]);
      return link;
    } catch (RuntimeException | Error e) {
      closeQuietly(link);
      throw e;
    }
  }

  private static Link connect(int rank, String host, int port, Waits waits, long deadline) {
    SocketChannel channel = null;
    try {
      channel = SocketChannel.open();
      int millis = deadline == Waits.NONE ? 0
          : (int) Waits.millisLeft(deadline, Integer.MAX_VALUE);
      channel.socket().connect(new InetSocketAddress(host, port), millis);
      return new Link(0, channel, waits);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new CollectiveException("rank " + rank + " could not connect to rank 0 at " + host
          + ":" + port + ": " + e + " (expected: executors that reach each other over TCP)", e);
    } catch (RuntimeException | Error e) {
      closeQuietly(channel);
      throw e;
    }
  }

  /** A status and a message: what rank 0 answers a call. */
  static ByteBuffer reply(int status, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(text.length, MAX_MESSAGE_BYTES);
    return ByteBuffer.allocate(8 + length).order(ByteOrder.LITTLE_ENDIAN).putInt(status)
        .putInt(length).put(text, 0, length).flip();
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
