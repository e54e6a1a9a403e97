package dev.stoker.spark.collective;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * All-reduce across the ranks of one stage attempt, as DDP's gradient averaging needs it once a
 * step: every rank sends its values to rank 0, which adds them in rank order and sends the result
 * back, so that every rank ends with the same bits whatever order the values arrived in. Only
 * ranks that hold the meeting's secret get in; every value travels encrypted and authenticated
 * (AES-256-GCM), and a frame forged, altered or replayed on the way fails the call naming the
 * peer. Every rank must make the same calls, with arrays of the same length, in the same order;
 * a rank that does not gets an {@link IllegalStateException} naming each rank's call, and so do
 * the others. A lost peer, a timeout or a cancelled task fails the call and closes the
 * connection, so the other ranks fail too instead of waiting. One thread at a time.
 */
public final class Collective implements AutoCloseable {
  private final int rank;
  private final int worldSize;
  private final StarReduce star;
  private int calls;
  private String failure;
  private boolean closed;
  private List<String> refusals = List.of();

  private Collective(int rank, int worldSize, StarReduce star) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.star = star;
  }

  /** The collective of a world of one rank: every reduction leaves the values as they are. */
  public static Collective single() {
    return new Collective(0, 1, null);
  }

  /**
   * Connects the ranks; every rank of the world calls it, each with its own rank. Rank 0 listens
   * on {@code host} (an address of its machine the others can reach) and draws the meeting's
   * secret; the ranks learn both from one {@code rendezvous}, which must be a channel strangers
   * cannot read. Peers prove on the socket that they hold the secret, and every later frame is
   * encrypted and authenticated (AES-256-GCM) with keys of its connection and direction. The
   * whole meeting, the rendezvous included, ends within the timeout of {@code waits}; a
   * connection that does not complete its handshake within {@link StarListener#HANDSHAKE_LIMIT}
   * is dropped without delaying the ranks.
   *
   * @param attempt the stage attempt, checked so that a rank of another attempt cannot join
   */
  public static Collective connect(int rank, int worldSize, int attempt, String host,
      Rendezvous rendezvous, Waits waits) {
    Objects.requireNonNull(rendezvous, "rendezvous");
    Objects.requireNonNull(waits, "waits");
    if (worldSize < 1 || rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException("rank " + rank + " of " + worldSize
          + " (expected: 0 <= rank < worldSize)");
    }
    if (worldSize == 1) {
      return single();
    }
    long deadline = waits.deadline(System.nanoTime());
    List<String> refusals = new ArrayList<>();
    Link[] links = rank == 0
        ? StarConnector.root(worldSize, attempt, Objects.requireNonNull(host, "host"),
            rendezvous, waits, deadline, refusals)
        : new Link[] {StarConnector.peer(rank, attempt, rendezvous, waits, deadline)};
    Collective collective = new Collective(rank, worldSize, new StarReduce(rank, worldSize,
        links));
    collective.refusals = List.copyOf(refusals);
    return collective;
  }

  /**
   * The connections rank 0 dropped while the ranks met (strangers, slow or silent connections,
   * wrong proofs), each naming the address and why; empty on other ranks.
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
      throw new CollectiveException("rank " + rank + ": " + op.call + ": "
          + (failure != null ? "the connection failed earlier: " + failure : "closed"));
    }
    if (star == null) {
      op.finish(values, worldSize);
      return;
    }
    int call = ++calls;
    try {
      star.reduce(op, values, call);
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
    star.close();
  }

  /** Closes the connections; the peers' calls then fail at once. Safe to call twice. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      if (star != null) {
        star.close();
      }
    }
  }

  @Override
  public String toString() {
    return "collective of rank " + rank + " of " + worldSize + (closed ? " (closed)" : "")
        + (failure != null ? " (failed: " + failure + ")" : "");
  }
}
