package dev.stoker.spark.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * The values of one all-reduce around the ring, once the star agreed on the call: the array is
 * cut into one segment per rank, then a reduce-scatter of worldSize - 1 steps (each rank sends a
 * segment to its successor and adds the one from its predecessor to its own) leaves every
 * segment fully reduced on one rank, its owner, and an all-gather of worldSize - 1 steps passes
 * each owner's result around unchanged. Segment {@code j} is always added in the same order,
 * starting from rank {@code j}'s values and adding ranks j + 1, j + 2, ... in turn, and the
 * all-gather copies the owner's bits: every rank ends with the same bits, and a given world size
 * gives the same bits run after run. Each step sends and receives at once, in frames of at most
 * {@link StarReduce#CHUNK_BYTES}, on one thread waiting on both links with one selector; every
 * frame is sealed ({@link FrameSeal}) as on the star.
 */
final class RingReduce {
  private final int rank;
  private final int worldSize;
  private final Link next;
  private final Link previous;
  private final Waits waits;
  private final Selector selector;
  private final SelectionKey sendKey;
  private final SelectionKey receiveKey;
  private final ByteBuffer chunk = ByteBuffer.allocateDirect(StarReduce.CHUNK_BYTES)
      .order(ByteOrder.LITTLE_ENDIAN);

  /** {@code links} = {next, previous}, from {@link RingConnector#connect}. */
  RingReduce(int rank, int worldSize, Link[] links, Waits waits) throws IOException {
    this.rank = rank;
    this.worldSize = worldSize;
    this.next = links[0];
    this.previous = links[1];
    this.waits = waits;
    this.selector = Selector.open();
    try {
      this.sendKey = next.channel().register(selector, 0);
      this.receiveKey = previous.channel().register(selector, 0);
    } catch (IOException | RuntimeException e) {
      selector.close();
      throw e;
    }
  }

  /** Where segment {@code segment} of {@code length} values begins. */
  private int start(int segment, int length) {
    return (int) ((long) length * segment / worldSize);
  }

  void reduce(ReduceOp op, Object values, String what) {
    int length = op.length(values);
    for (int step = 0; step < worldSize - 1; step++) {
      int sent = Math.floorMod(rank - step, worldSize);
      int received = Math.floorMod(rank - step - 1, worldSize);
      exchange(op, values, length, sent, received, true, what);
    }
    int owned = Math.floorMod(rank + 1, worldSize);
    int from = start(owned, length);
    op.finish(values, from, start(owned + 1, length) - from, worldSize);
    for (int step = 0; step < worldSize - 1; step++) {
      int sent = Math.floorMod(rank + 1 - step, worldSize);
      int received = Math.floorMod(rank - step, worldSize);
      exchange(op, values, length, sent, received, false, what);
    }
  }

  /**
   * Sends segment {@code sent} to the successor while the predecessor's segment {@code received}
   * arrives, frame by frame, added to the values ({@code add}) or copied over them.
   */
  private void exchange(ReduceOp op, Object values, int length, int sent, int received,
      boolean add, String what) {
    int perFrame = StarReduce.CHUNK_BYTES / op.bytes;
    int sendFrom = start(sent, length);
    int sendEnd = start(sent + 1, length);
    int receiveFrom = start(received, length);
    int receiveEnd = start(received + 1, length);
    ByteBuffer[] frame = null;
    long sendSince = System.nanoTime();
    long receiveSince = sendSince;
    while (frame != null || sendFrom < sendEnd || receiveFrom < receiveEnd) {
      boolean moved = false;
      if (frame == null && sendFrom < sendEnd) {
        int count = Math.min(perFrame, sendEnd - sendFrom);
        chunk.clear();
        op.put(values, sendFrom, count, chunk);
        chunk.limit(count * op.bytes);
        frame = next.frame(what, chunk);
        sendFrom += count;
      }
      if (frame != null) {
        long before = next.bytesOut();
        if (next.writeSome(what, frame)) {
          frame = null;
        }
        if (next.bytesOut() != before) {
          sendSince = System.nanoTime();
          moved = true;
        }
      }
      if (receiveFrom < receiveEnd) {
        long before = previous.bytesIn();
        ByteBuffer body = previous.readSome(what);
        if (body != null) {
          int count = Math.min(perFrame, receiveEnd - receiveFrom);
          if (body.remaining() != count * op.bytes) {
            throw new CollectiveException(what + ": " + previous.who() + " sent "
                + body.remaining() + " bytes for " + count + " values of segment " + received
                + " (expected: " + count * op.bytes + "; ranks of the same Stoker version)");
          }
          if (add) {
            op.add(body, values, receiveFrom, count);
          } else {
            op.get(body, values, receiveFrom, count);
          }
          receiveFrom += count;
        }
        if (previous.bytesIn() != before) {
          receiveSince = System.nanoTime();
          moved = true;
        }
      }
      if (!moved) {
        await(frame != null, receiveFrom < receiveEnd, sendSince, receiveSince, what);
      }
    }
  }

  /** Waits until a link can move bytes, at most until one has been stuck for the timeout. */
  private void await(boolean sending, boolean receiving, long sendSince, long receiveSince,
      String what) {
    sendKey.interestOps(sending ? SelectionKey.OP_WRITE : 0);
    receiveKey.interestOps(receiving ? SelectionKey.OP_READ : 0);
    long sendDeadline = sending ? waits.deadline(sendSince) : Waits.NONE;
    long receiveDeadline = receiving ? waits.deadline(receiveSince) : Waits.NONE;
    try {
      waits.check(what);
      if (receiving && Waits.passed(receiveDeadline)) {
        throw waits.timedOut(what + " (waiting for " + previous.name() + ")");
      }
      if (sending && Waits.passed(sendDeadline)) {
        throw waits.timedOut(what + " (waiting for " + next.name() + ")");
      }
      long millis = Math.min(Waits.millisLeft(sendDeadline, Waits.SLICE_MILLIS),
          Waits.millisLeft(receiveDeadline, Waits.SLICE_MILLIS));
      selector.select(millis);
      selector.selectedKeys().clear();
    } catch (IOException e) {
      throw new CollectiveException(what + ": waiting on the ring's links failed: " + e, e);
    }
  }

  /** Closes both links; errors are of no interest after a failure or at the end. */
  void close() {
    StarConnector.closeQuietly(selector);
    StarConnector.closeQuietly(next);
    StarConnector.closeQuietly(previous);
  }
}
