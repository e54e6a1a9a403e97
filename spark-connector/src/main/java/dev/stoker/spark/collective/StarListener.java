package dev.stoker.spark.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening side of a meeting: rank 0's in the star, and each rank's for its predecessor in the
 * ring. Accepts connections and runs their handshakes side by side on one selector, so that no
 * connection can hold up another. Whoever connects has {@link #HANDSHAKE_LIMIT} to say hello and
 * prove that it holds the meeting's secret; one that stays silent, dribbles, sends anything else or
 * a wrong proof is dropped and noted, and the ranks never wait for it. The meeting as a whole ends
 * at one deadline. At most {@link #MAX_PENDING} handshakes run at once; a flood of connections
 * drops the oldest.
 */
final class StarListener {
  private static final Logger LOG = LoggerFactory.getLogger(StarListener.class);

  /** How long one connection may take to say hello and prove it holds the secret. */
  static final Duration HANDSHAKE_LIMIT = Duration.ofSeconds(5);

  static final int MAX_PENDING = 256;
  private static final int LOGGED_REFUSALS = 10;
  private static final int KEPT_REFUSALS = 100;

  private final int self;
  private final int[] expected;
  private final String meeting;
  private final int worldSize;
  private final int attempt;
  private final byte[] secret;
  private final Waits waits;
  private final long deadline;
  private final List<String> refusals;
  private final Link[] links;
  private final byte[][] transcripts;
  private final Deque<Pending> pending = new ArrayDeque<>();
  private int connected;
  private int dropped;

  StarListener(
      int worldSize,
      int attempt,
      byte[] secret,
      Waits waits,
      long deadline,
      List<String> refusals) {
    this(
        0,
        allBut0(worldSize),
        "the ranks' meeting",
        worldSize,
        attempt,
        secret,
        waits,
        deadline,
        refusals);
  }

  /**
   * A listener of rank {@code self} that takes the ranks {@code expected} (in increasing order);
   * {@code meeting} names it in errors.
   */
  StarListener(
      int self,
      int[] expected,
      String meeting,
      int worldSize,
      int attempt,
      byte[] secret,
      Waits waits,
      long deadline,
      List<String> refusals) {
    this.self = self;
    this.expected = expected.clone();
    this.meeting = meeting;
    this.worldSize = worldSize;
    this.attempt = attempt;
    this.secret = secret;
    this.waits = waits;
    this.deadline = deadline;
    this.refusals = refusals;
    this.links = new Link[worldSize];
    this.transcripts = new byte[worldSize][];
  }

  private static int[] allBut0(int worldSize) {
    int[] ranks = new int[worldSize - 1];
    for (int r = 1; r < worldSize; r++) {
      ranks[r - 1] = r;
    }
    return ranks;
  }

  /** The links to the expected ranks, in their order, each proven and welcomed. */
  Link[] accept(ServerSocketChannel server) throws IOException {
    String what = "rank " + self + ": " + meeting;
    server.configureBlocking(false);
    try (Selector selector = Selector.open()) {
      server.register(selector, SelectionKey.OP_ACCEPT);
      while (connected < expected.length) {
        waits.check(what);
        if (Waits.passed(deadline)) {
          throw waits.meetingTimedOut(what + ": " + missing() + " did not connect");
        }
        selector.select(Waits.millisLeft(deadline, Waits.SLICE_MILLIS));
        selector.selectedKeys().clear();
        acceptAll(server, selector);
        for (Pending one : new ArrayList<>(pending)) {
          step(one);
        }
      }
      Link[] accepted = new Link[expected.length];
      for (int i = 0; i < expected.length; i++) {
        Link link = links[expected[i]];
        link.writeBefore(
            "rank " + self + " welcoming " + link.who(),
            deadline,
            ByteBuffer.wrap(MeetingCrypto.rootProof(secret, transcripts[link.peer()])));
        accepted[i] = link;
      }
      return accepted;
    } catch (RuntimeException | Error | IOException e) {
      for (Link link : links) {
        StarConnector.closeQuietly(link);
      }
      throw e;
    } finally {
      for (Pending one : new ArrayList<>(pending)) {
        drop(one, "had not completed its handshake " + one.stage() + " when the meeting ended");
      }
    }
  }

  private void acceptAll(ServerSocketChannel server, Selector selector) throws IOException {
    SocketChannel channel;
    while ((channel = server.accept()) != null) {
      if (pending.size() >= MAX_PENDING) {
        drop(
            pending.peekFirst(),
            "was the oldest of "
                + MAX_PENDING
                + " connections in their "
                + "handshake when another came");
      }
      channel.configureBlocking(false);
      long limit = System.nanoTime() + HANDSHAKE_LIMIT.toNanos();
      Pending one =
          new Pending(channel, deadline == Waits.NONE || limit - deadline < 0 ? limit : deadline);
      one.key = channel.register(selector, SelectionKey.OP_READ, one);
      pending.addLast(one);
    }
  }

  /** Reads what {@code one} sent so far and moves its handshake on. */
  private void step(Pending one) {
    try {
      int count = one.channel.read(one.in);
      if (count < 0) {
        drop(one, "closed the connection " + one.stage());
        return;
      }
    } catch (IOException e) {
      drop(one, "lost its connection " + one.stage() + ": " + e);
      return;
    }
    if (one.in.hasRemaining()) {
      if (System.nanoTime() - one.deadline >= 0) {
        drop(
            one,
            "did not complete its handshake within "
                + Waits.describe(HANDSHAKE_LIMIT)
                + " ("
                + one.in.position()
                + " bytes "
                + one.stage()
                + ")");
      }
      return;
    }
    one.in.flip();
    if (one.rootNonce == null) {
      hello(one);
    } else {
      proof(one);
    }
  }

  private void hello(Pending one) {
    ByteBuffer in = one.in;
    int magic = in.getInt();
    one.rank = in.getInt();
    int theirAttempt = in.getInt();
    if (magic != StarConnector.MAGIC) {
      drop(one, "sent no Stoker hello");
      return;
    }
    if (!isExpected(one.rank)) {
      drop(one, "claims rank " + one.rank + " (expected: " + expectedRanks() + ")");
      return;
    }
    if (theirAttempt != attempt) {
      drop(
          one,
          "claims rank "
              + one.rank
              + " of stage attempt "
              + theirAttempt
              + " (expected: attempt "
              + attempt
              + ")");
      return;
    }
    one.peerNonce = new byte[MeetingCrypto.NONCE_BYTES];
    in.get(one.peerNonce);
    one.rootNonce = MeetingCrypto.nonce();
    try {
      one.channel.write(ByteBuffer.wrap(one.rootNonce));
    } catch (IOException e) {
      drop(one, "lost its connection after its hello: " + e);
      return;
    }
    one.in = ByteBuffer.allocate(MeetingCrypto.PROOF_BYTES);
  }

  private void proof(Pending one) {
    byte[] transcript = MeetingCrypto.transcript(one.rank, attempt, one.peerNonce, one.rootNonce);
    if (!MeetingCrypto.same(MeetingCrypto.peerProof(secret, transcript), one.in.array())) {
      drop(
          one,
          "claims rank "
              + one.rank
              + " but does not prove that it holds the meeting's "
              + "secret (a stranger, or a rank of another meeting)");
      return;
    }
    if (links[one.rank] != null) {
      drop(one, "claims rank " + one.rank + ", already connected");
      return;
    }
    pending.remove(one);
    one.key.cancel();
    Link link;
    try {
      link = new Link(one.rank, one.channel, waits);
    } catch (IOException e) {
      StarConnector.closeQuietly(one.channel);
      throw new CollectiveException(
          "rank " + self + ": setting up the connection of rank " + one.rank + " failed: " + e, e);
    }
    FrameSeal[] seals = MeetingCrypto.seals(secret, transcript);
    link.seal(seals[1], seals[0]);
    links[one.rank] = link;
    transcripts[one.rank] = transcript;
    connected++;
  }

  private void drop(Pending one, String why) {
    pending.remove(one);
    StarConnector.closeQuietly(one.channel);
    String refusal = "rank " + self + " dropped a connection from " + one.address + ": it " + why;
    dropped++;
    if (dropped <= KEPT_REFUSALS) {
      refusals.add(refusal);
    }
    if (dropped <= LOGGED_REFUSALS) {
      LOG.warn(
          "{}{}",
          refusal,
          dropped == LOGGED_REFUSALS
              ? " (further dropped connections of this meeting are not logged)"
              : "");
    }
  }

  /** The ranks not connected yet: "ranks 2, 3". */
  private String missing() {
    StringBuilder ranks = new StringBuilder();
    int count = 0;
    for (int r : expected) {
      if (links[r] == null) {
        ranks.append(count++ == 0 ? "" : ", ").append(r);
      }
    }
    return (count == 1 ? "rank " : "ranks ") + ranks;
  }

  private boolean isExpected(int rank) {
    for (int r : expected) {
      if (r == rank) {
        return true;
      }
    }
    return false;
  }

  /** What a hello may claim: "a rank in 1..3", or "rank 2". */
  private String expectedRanks() {
    return expected.length == 1
        ? "rank " + expected[0]
        : "a rank in " + expected[0] + ".." + expected[expected.length - 1];
  }

  /** A connection whose handshake runs. */
  private static final class Pending {
    final SocketChannel channel;
    final long deadline;
    SelectionKey key;
    ByteBuffer in = ByteBuffer.allocate(StarConnector.HELLO_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    int rank = -1;
    byte[] peerNonce;
    byte[] rootNonce;
    final String address;

    Pending(SocketChannel channel, long deadline) {
      this.channel = channel;
      this.deadline = deadline;
      String remote;
      try {
        remote = String.valueOf(channel.getRemoteAddress());
      } catch (IOException e) {
        remote = "an unknown address";
      }
      this.address = remote;
    }

    String stage() {
      return rootNonce == null ? "before its hello" : "before its proof";
    }
  }
}
