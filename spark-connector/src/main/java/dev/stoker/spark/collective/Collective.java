package dev.stoker.spark.collective;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * All-reduce across the ranks of one stage attempt, as DDP's gradient averaging needs it once a
 * step. Small arrays go through a star: every rank sends its values to rank 0, which adds them in
 * rank order and sends the result back. Large ones go around a ring ({@link RingReduce}: a
 * reduce-scatter, then an all-gather), so that no rank moves more than twice the values whatever
 * the world size; each segment is added in a fixed order and the owner's result is copied. Either
 * way every rank ends with the same bits whatever order the values arrived in, and a world size
 * gives the same bits run after run ({@link AllReduceAlgorithm}). Only ranks that hold the
 * meeting's secret get in; every value travels encrypted and authenticated (AES-256-GCM), and a
 * frame forged, altered or replayed on the way fails the call naming the peer. Every rank must make
 * the same calls, with arrays of the same length, in the same order; a rank that does not gets an
 * {@link IllegalStateException} naming each rank's call, and so do the others. A lost peer, a
 * timeout or a cancelled task fails the call and closes the connection, so the other ranks fail too
 * instead of waiting. One thread at a time.
 */
public final class Collective implements AutoCloseable {
  /**
   * From how many bytes a call {@link AllReduceAlgorithm#AUTO} takes the ring, per step of the
   * ring's reduce-scatter (worldSize - 1): each step costs a round of latency, so the more ranks,
   * the larger an array must be before the ring's bandwidth pays for its steps.
   */
  public static final long RING_MIN_BYTES_PER_STEP = 512 << 10;

  private static final int RING_BACKLOG = 16;

  private final int rank;
  private final int worldSize;
  private final StarReduce star;
  private final RingReduce ring;

  /** Why there is no ring, when there is none in a world of more than one rank. */
  private final String noRing;

  private AllReduceAlgorithm algorithm = AllReduceAlgorithm.AUTO;
  private int calls;
  private String failure;
  private boolean closed;
  private List<String> refusals = List.of();

  private Collective(int rank, int worldSize, StarReduce star, RingReduce ring, String noRing) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.star = star;
    this.ring = ring;
    this.noRing = noRing;
  }

  /** The collective of a world of one rank: every reduction leaves the values as they are. */
  public static Collective single() {
    return new Collective(0, 1, null, null, null);
  }

  /**
   * Connects the ranks; every rank of the world calls it, each with its own rank. Rank 0 listens on
   * {@code host} (an address of its machine the others can reach) and draws the meeting's secret;
   * the ranks learn both from one {@code rendezvous}, which must be a channel strangers cannot
   * read. Peers prove on the socket that they hold the secret, and every later frame is encrypted
   * and authenticated (AES-256-GCM) with keys of its connection and direction. The whole meeting,
   * the rendezvous included, ends within the timeout of {@code waits}; a connection that does not
   * complete its handshake within {@link StarListener#HANDSHAKE_LIMIT} is dropped without delaying
   * the ranks. Every rank also listens on {@code host} for its predecessor in the ring, and
   * connects to its successor, in the same meeting.
   *
   * @param attempt the stage attempt, checked so that a rank of another attempt cannot join
   */
  public static Collective connect(
      int rank, int worldSize, int attempt, String host, Rendezvous rendezvous, Waits waits) {
    return connect(
        rank, worldSize, attempt, host == null ? null : ListenOn.any(host), rendezvous, waits);
  }

  /**
   * {@link #connect(int, int, int, String, Rendezvous, Waits)} listening on the address and the
   * ports of {@code listenOn}.
   */
  public static Collective connect(
      int rank, int worldSize, int attempt, ListenOn listenOn, Rendezvous rendezvous, Waits waits) {
    Objects.requireNonNull(rendezvous, "rendezvous");
    Objects.requireNonNull(waits, "waits");
    if (worldSize < 1 || rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException(
          "rank " + rank + " of " + worldSize + " (expected: 0 <= rank < worldSize)");
    }
    if (worldSize == 1) {
      return single();
    }
    if (rank == 0) {
      Objects.requireNonNull(listenOn, "host");
    }
    long deadline = waits.deadline(System.nanoTime());
    List<String> refusals = new ArrayList<>();
    ServerSocketChannel ringServer = null;
    String ringAddress = "";
    String noRing = null;
    if (listenOn != null) {
      try {
        ringServer = listenOn.bind(RING_BACKLOG);
        ringAddress = RingConnector.address(ringServer, listenOn.host());
      } catch (IOException | RuntimeException e) {
        StarConnector.closeQuietly(ringServer);
        ringServer = null;
        noRing = "rank " + rank + " could not listen for the ring on " + listenOn + ": " + e;
      }
    }
    Link[] links = null;
    Link[] ringLinks = null;
    try {
      StarConnector.Meeting star =
          star(
              rank,
              worldSize,
              attempt,
              listenOn,
              ringAddress,
              rendezvous,
              waits,
              deadline,
              refusals);
      links = star.links();
      String[] ringAddresses = ringAddresses(star.messages());
      RingReduce ring = null;
      if (ringAddresses == null) {
        noRing = noRing != null ? noRing : "a rank did not say where it listens for the ring";
      } else {
        ringLinks =
            RingConnector.connect(
                rank,
                worldSize,
                attempt,
                ringServer,
                ringAddresses,
                star.secret(),
                waits,
                deadline,
                refusals);
        ring = new RingReduce(rank, worldSize, ringLinks, waits);
      }
      Collective collective =
          new Collective(rank, worldSize, new StarReduce(rank, worldSize, links), ring, noRing);
      collective.refusals = List.copyOf(refusals);
      return collective;
    } catch (IOException e) {
      closeAll(links, ringLinks);
      throw new CollectiveException("rank " + rank + ": setting up the ring failed: " + e, e);
    } catch (RuntimeException | Error e) {
      closeAll(links, ringLinks);
      throw e;
    } finally {
      StarConnector.closeQuietly(ringServer);
    }
  }

  /**
   * The star's meeting: rank 0 listens and says where, with the secret and the port of its ring
   * listener; every other rank says where it listens for the ring and connects to rank 0.
   */
  private static StarConnector.Meeting star(
      int rank,
      int worldSize,
      int attempt,
      ListenOn listenOn,
      String ringAddress,
      Rendezvous rendezvous,
      Waits waits,
      long deadline,
      List<String> refusals) {
    if (rank == 0) {
      return StarConnector.root(
          worldSize,
          attempt,
          listenOn,
          ringAddress.isEmpty() ? "" : ringAddress.substring(ringAddress.lastIndexOf(':') + 1),
          rendezvous,
          waits,
          deadline,
          refusals);
    }
    String[] messages = rendezvous.allGather(ringAddress);
    Link link = StarConnector.peer(rank, attempt, messages[0], waits, deadline);
    return new StarConnector.Meeting(
        new Link[] {link}, StarConnector.secretIn(messages[0]), messages);
  }

  /** Where each rank listens for the ring, index = rank; null if a rank did not say. */
  private static String[] ringAddresses(String[] messages) {
    String[] addresses = new String[messages.length];
    String port = StarConnector.extraOf(messages[0]);
    if (port.isEmpty()) {
      return null;
    }
    addresses[0] = StarConnector.hostIn(messages[0]) + ":" + port;
    for (int r = 1; r < messages.length; r++) {
      if (messages[r] == null || messages[r].isEmpty()) {
        return null;
      }
      addresses[r] = messages[r];
    }
    return addresses;
  }

  private static void closeAll(Link[]... groups) {
    for (Link[] links : groups) {
      if (links != null) {
        for (Link link : links) {
          StarConnector.closeQuietly(link);
        }
      }
    }
  }

  /**
   * How the following calls move their values ({@link AllReduceAlgorithm#AUTO} unless set): every
   * rank must choose the same, or its calls fail naming each rank's.
   */
  public synchronized Collective algorithm(AllReduceAlgorithm algorithm) {
    this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
    return this;
  }

  /** The algorithm a call of {@code bytes} bytes takes now. */
  public synchronized AllReduceAlgorithm algorithmFor(long bytes) {
    if (algorithm != AllReduceAlgorithm.AUTO) {
      return algorithm;
    }
    return ring != null && bytes >= ringMinBytes(worldSize)
        ? AllReduceAlgorithm.RING
        : AllReduceAlgorithm.STAR;
  }

  /** From how many bytes a call of {@code worldSize} ranks takes the ring when AUTO. */
  public static long ringMinBytes(int worldSize) {
    return RING_MIN_BYTES_PER_STEP * Math.max(1, worldSize - 1);
  }

  /**
   * The connections this rank dropped while the ranks met (strangers, slow or silent connections,
   * wrong proofs), each naming the address and why: rank 0's for the star and every rank's for the
   * ring.
   */
  public List<String> refusals() {
    return refusals;
  }

  public int rank() {
    return rank;
  }

  public int worldSize() {
    return worldSize;
  }

  /** Replaces {@code values} with their mean over the ranks (sum in rank order / worldSize). */
  public float[] allReduceMean(float[] values) {
    reduce(ReduceOp.MEAN_FLOAT, Objects.requireNonNull(values, "values"));
    return values;
  }

  /** Replaces {@code values} with their sum over the ranks, added in rank order. */
  public float[] allReduceSum(float[] values) {
    reduce(ReduceOp.SUM_FLOAT, Objects.requireNonNull(values, "values"));
    return values;
  }

  /** Replaces {@code values} with their sum over the ranks, added in rank order. */
  public double[] allReduceSum(double[] values) {
    reduce(ReduceOp.SUM_DOUBLE, Objects.requireNonNull(values, "values"));
    return values;
  }

  /** Replaces {@code values} with their sum over the ranks (wrapping on overflow, as Java's +). */
  public long[] allReduceSum(long[] values) {
    reduce(ReduceOp.SUM_LONG, Objects.requireNonNull(values, "values"));
    return values;
  }

  private synchronized void reduce(ReduceOp op, Object values) {
    if (closed || failure != null) {
      throw new CollectiveException(
          "rank "
              + rank
              + ": "
              + op.call
              + ": "
              + (failure != null ? "the connection failed earlier: " + failure : "closed"));
    }
    if (star == null) {
      op.finish(values, worldSize);
      return;
    }
    int call = ++calls;
    boolean viaRing = algorithmFor((long) op.length(values) * op.bytes) == AllReduceAlgorithm.RING;
    if (viaRing && ring == null) {
      throw new CollectiveException(
          "rank "
              + rank
              + ": "
              + op.call
              + " call #"
              + call
              + ": "
              + "the ring was asked for, but the ranks have none: "
              + noRing
              + " (expected: "
              + "AllReduceAlgorithm.AUTO or STAR, or every rank able to listen for the ring)",
          null,
          true);
    }
    try {
      star.reduce(op, values, call, viaRing);
      if (viaRing) {
        ring.reduce(op, values, "rank " + rank + ": " + op.call + " call #" + call);
      }
    } catch (CollectiveException e) {
      if (!e.inStep()) {
        fail(e.getMessage());
      }
      throw e;
    } catch (RuntimeException | Error e) { // e.g. Spark's TaskKilledException
      fail(e.toString());
      throw e;
    }
  }

  private void fail(String why) {
    failure = why;
    closeLinks();
  }

  private void closeLinks() {
    star.close();
    if (ring != null) {
      ring.close();
    }
  }

  /** Closes the connections; the peers' calls then fail at once. Safe to call twice. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      if (star != null) {
        closeLinks();
      }
    }
  }

  @Override
  public String toString() {
    return "collective of rank "
        + rank
        + " of "
        + worldSize
        + (closed ? " (closed)" : "")
        + (failure != null ? " (failed: " + failure + ")" : "");
  }
}
