package dev.stoker.spark.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The wire protocol of one all-reduce over the star. A rank sends a head (op and algorithm, call
 * number, length) and its values; rank 0 reads every head first, so that it can refuse a call the
 * ranks disagree on before reading any values (it then reads and drops them, and answers every rank
 * with the reason: the ranks stay in step). Otherwise it adds each rank's values to its own in rank
 * order and answers with a head (status, length) and the result. Large arrays go in chunks; the
 * buffers are direct and reused.
 */
final class StarReduce {
  static final int CHUNK_BYTES = 1 << 20;

  /** Set in a head's op code when the values go around the ring: the star only agrees. */
  private static final int RING = 1 << 16;

  private static final int HEAD_BYTES = 12;
  private static final int ANSWER_BYTES = 8;

  private final int rank;
  private final int worldSize;
  private final Link[] links;
  private final ByteBuffer head =
      ByteBuffer.allocateDirect(HEAD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final ByteBuffer chunk =
      ByteBuffer.allocateDirect(CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);

  /** Rank 0 holds a link to every other rank, index = rank - 1; the others one to rank 0. */
  StarReduce(int rank, int worldSize, Link[] links) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.links = links;
  }

  void reduce(ReduceOp op, Object values, int call) {
    reduce(op, values, call, false);
  }

  /**
   * One call: with {@code ring}, only agrees on it (every rank's head to rank 0, and its answer:
   * go, or why not) and leaves the values to the ring; else reduces them through rank 0.
   */
  void reduce(ReduceOp op, Object values, int call, boolean ring) {
    String what = "rank " + rank + ": " + op.call + " call #" + call;
    if (rank == 0) {
      root(op, values, call, ring, what);
    } else {
      peer(op, values, call, ring, what);
    }
  }

  private void peer(ReduceOp op, Object values, int call, boolean ring, String what) {
    Link root = links[0];
    int length = op.length(values);
    head.clear();
    head.putInt(op.code | (ring ? RING : 0)).putInt(call).putInt(length).flip();
    int from = 0;
    if (ring) {
      root.write(what, head);
    } else {
      do {
        int count = fill(op, values, from, length);
        if (from == 0) {
          root.write(what, head, chunk);
        } else {
          root.write(what, chunk);
        }
        from += count;
      } while (from < length);
    }
    head.clear().limit(ANSWER_BYTES);
    root.read(head, what);
    head.flip();
    int status = head.getInt();
    int answered = head.getInt();
    if (status != StarConnector.OK) {
      if (answered < 0 || answered > StarConnector.MAX_MESSAGE_BYTES) {
        throw new CollectiveException(
            what
                + ": rank 0 answered an error of "
                + answered
                + " bytes (expected: at most "
                + StarConnector.MAX_MESSAGE_BYTES
                + ")");
      }
      ByteBuffer text = ByteBuffer.allocate(answered);
      root.read(text, what);
      throw new CollectiveException(
          "rank " + rank + ": " + new String(text.array(), StandardCharsets.UTF_8), null, true);
    }
    if (answered != length) {
      throw new CollectiveException(
          what
              + ": rank 0 answered "
              + answered
              + " values for "
              + length
              + " (expected: ranks of the same Stoker version)");
    }
    if (ring) {
      return;
    }
    for (from = 0; from < length; ) {
      int count = Math.min(CHUNK_BYTES / op.bytes, length - from);
      chunk.clear().limit(count * op.bytes);
      root.read(chunk, what);
      chunk.flip();
      op.get(chunk, values, from, count);
      from += count;
    }
  }

  private void root(ReduceOp op, Object values, int call, boolean ring, String what) {
    int length = op.length(values);
    ReduceOp[] ops = new ReduceOp[worldSize];
    int[] calls = new int[worldSize];
    int[] lengths = new int[worldSize];
    boolean[] rings = new boolean[worldSize];
    ops[0] = op;
    calls[0] = call;
    lengths[0] = length;
    rings[0] = ring;
    boolean agreed = true;
    for (Link link : links) {
      int peer = link.peer();
      head.clear();
      link.read(head, what);
      head.flip();
      int code = head.getInt();
      ops[peer] = ReduceOp.ofCode(code & ~RING);
      rings[peer] = (code & RING) != 0;
      calls[peer] = head.getInt();
      lengths[peer] = head.getInt();
      if (ops[peer] == null || lengths[peer] < 0) {
        throw new CollectiveException(
            what
                + ": rank "
                + peer
                + " sent an unknown call (code "
                + code
                + ", length "
                + lengths[peer]
                + ") (expected: ranks of the same Stoker "
                + "version)");
      }
      agreed &=
          ops[peer] == op && calls[peer] == call && lengths[peer] == length && rings[peer] == ring;
    }
    if (!agreed) {
      refuse(ops, calls, lengths, rings);
    }
    if (ring) {
      for (Link link : links) {
        head.clear();
        head.putInt(StarConnector.OK).putInt(length).flip();
        link.write(what, head);
      }
      return;
    }
    for (Link link : links) {
      for (int from = 0; from < length; ) {
        int count = Math.min(CHUNK_BYTES / op.bytes, length - from);
        chunk.clear().limit(count * op.bytes);
        link.read(chunk, what);
        chunk.flip();
        op.add(chunk, values, from, count);
        from += count;
      }
    }
    op.finish(values, worldSize);
    head.clear();
    head.putInt(StarConnector.OK).putInt(length).flip();
    int from = 0;
    do {
      int count = fill(op, values, from, length);
      for (Link link : links) {
        head.position(0);
        chunk.position(0);
        if (from == 0) {
          link.write(what, head, chunk);
        } else {
          link.write(what, chunk);
        }
      }
      from += count;
    } while (from < length);
  }

  /** Puts the next chunk of values from {@code from} into {@link #chunk}; returns how many. */
  private int fill(ReduceOp op, Object values, int from, int length) {
    int count = Math.min(CHUNK_BYTES / op.bytes, length - from);
    chunk.clear();
    op.put(values, from, count, chunk);
    chunk.limit(count * op.bytes);
    return count;
  }

  /** Rank 0, when the ranks disagree: drops their values, tells every rank why, and throws. */
  private void refuse(ReduceOp[] ops, int[] calls, int[] lengths, boolean[] rings) {
    boolean sameAlgorithm = true;
    for (boolean ring : rings) {
      sameAlgorithm &= ring == rings[0];
    }
    StringBuilder message =
        new StringBuilder(ops[0].call)
            .append(" call #")
            .append(calls[0])
            .append(": the ranks disagree:");
    for (int r = 0; r < worldSize; r++) {
      message
          .append(r == 0 ? " " : ", ")
          .append("rank ")
          .append(r)
          .append(": ")
          .append(ops[r].call);
      if (calls[r] != calls[0]) {
        message.append(" call #").append(calls[r]);
      }
      message.append(" of ").append(lengths[r]).append(" values");
      if (!sameAlgorithm) {
        message.append(rings[r] ? " by the ring" : " by the star");
      }
    }
    message.append(
        " (expected: the same call with arrays of the same length on every rank, in "
            + "the same order)");
    String what = "rank 0: " + message;
    for (Link link : links) {
      long left = rings[link.peer()] ? 0 : (long) lengths[link.peer()] * ops[link.peer()].bytes;
      while (left > 0) {
        chunk.clear().limit((int) Math.min(CHUNK_BYTES, left));
        link.read(chunk, what);
        left -= chunk.position();
      }
    }
    for (Link link : links) {
      link.write(what, StarConnector.reply(StarConnector.ERROR, message.toString()));
    }
    throw new CollectiveException(what, null, true);
  }

  /** Closes every connection; errors are of no interest after a failure or at the end. */
  void close() {
    for (Link link : links) {
      StarConnector.closeQuietly(link);
    }
  }
}
