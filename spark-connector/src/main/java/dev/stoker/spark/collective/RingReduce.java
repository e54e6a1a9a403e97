package dev.stoker.spark.collective;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * The values of one all-reduce around the ring, once the star agreed on the call: the array is cut
 * into one segment per rank, then a reduce-scatter of worldSize - 1 steps (each rank sends a
 * segment to its successor and adds the one from its predecessor to its own) leaves every segment
 * fully reduced on one rank, its owner, and an all-gather of worldSize - 1 steps passes each
 * owner's result around unchanged. Segment {@code j} is always added in the same order, starting
 * from rank {@code j}'s values and adding ranks j + 1, j + 2, ... in turn, and the all-gather
 * copies the owner's bits: every rank ends with the same bits, and a given world size gives the
 * same bits run after run. The steps go in frames of at most {@link StarReduce#CHUNK_BYTES},
 * pipelined: a frame is passed on as soon as it came in, while the next comes in, on one thread
 * waiting on both links with one selector; every frame is sealed ({@link FrameSeal}) as on the
 * star.
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
  private final ByteBuffer chunk =
      ByteBuffer.allocateDirect(StarReduce.CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);

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

  /** The segment rank {@code rank} sends at step {@code step} of 2 (worldSize - 1). */
  private int sent(int step) {
    return step < worldSize - 1
        ? Math.floorMod(rank - step, worldSize)
        : Math.floorMod(rank + 1 - (step - worldSize + 1), worldSize);
  }

  /** The segment it receives at {@code step}: the one it sends at the next step. */
  private int received(int step) {
    return step < worldSize - 1
        ? Math.floorMod(rank - step - 1, worldSize)
        : Math.floorMod(rank - (step - worldSize + 1), worldSize);
  }

  /**
   * Both phases as one stream of frames: the frame {@code k} of a step goes out as soon as frame
   * {@code k} of the step before has come in (and been added, and, for the segment this rank owns,
   * finished), so the steps overlap frame by frame instead of waiting for each other.
   */
  void reduce(ReduceOp op, Object values, String what) {
    int length = op.length(values);
    int perFrame = StarReduce.CHUNK_BYTES / op.bytes;
    int steps = 2 * (worldSize - 1);
    int sendStep = 0;
    int sendFrame = 0;
    int receiveStep = 0;
    int receiveFrame = 0;
    ByteBuffer[] frame = null;
    long sendSince = System.nanoTime();
    long receiveSince = sendSince;
    while (frame != null || sendStep < steps || receiveStep < steps) {
      boolean moved = false;
      if (frame == null && sendStep < steps) {
        int segment = sent(sendStep);
        int from = start(segment, length) + sendFrame * perFrame;
        int end = start(segment + 1, length);
        if (from >= end) { // an empty segment: nothing to send at this step
          sendStep++;
          sendFrame = 0;
          moved = true;
        } else if (sendStep == 0
            || receiveStep > sendStep - 1
            || receiveStep == sendStep - 1 && receiveFrame > sendFrame) {
          int count = Math.min(perFrame, end - from);
          chunk.clear();
          op.put(values, from, count, chunk);
          chunk.limit(count * op.bytes);
          frame = next.frame(what, chunk);
          if (from + count >= end) {
            sendStep++;
            sendFrame = 0;
          } else {
            sendFrame++;
          }
        }
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
      if (receiveStep < steps) {
        int segment = received(receiveStep);
        int from = start(segment, length) + receiveFrame * perFrame;
        int end = start(segment + 1, length);
        if (from >= end) {
          receiveStep++;
          receiveFrame = 0;
          moved = true;
        } else {
          long before = previous.bytesIn();
          ByteBuffer body = previous.readSome(what);
          if (body != null) {
            int count = Math.min(perFrame, end - from);
            take(op, values, body, from, count, receiveStep, segment, what);
            if (from + count >= end) {
              receiveStep++;
              receiveFrame = 0;
            } else {
              receiveFrame++;
            }
          }
          if (previous.bytesIn() != before) {
            receiveSince = System.nanoTime();
            moved = true;
          }
        }
      }
      if (!moved) {
        await(frame != null, receiveStep < steps, sendSince, receiveSince, what);
      }
    }
  }

  /**
   * Adds a frame of the reduce-scatter to the values (and finishes it, on the last step, where the
   * segment is this rank's to own), or copies a frame of the all-gather over them.
   */
  private void take(
      ReduceOp op,
      Object values,
      ByteBuffer body,
      int from,
      int count,
      int step,
      int segment,
      String what) {
    if (body.remaining() != count * op.bytes) {
      throw new CollectiveException(
          what
              + ": "
              + previous.who()
              + " sent "
              + body.remaining()
              + " bytes for "
              + count
              + " values of segment "
              + segment
              + " (expected: "
              + count * op.bytes
              + "; ranks of the same Stoker version)");
    }
    if (step < worldSize - 1) {
      op.add(body, values, from, count);
      if (step == worldSize - 2) {
        op.finish(values, from, count, worldSize);
      }
    } else {
      op.get(body, values, from, count);
    }
  }

  /** Waits until a link can move bytes, at most until one has been stuck for the timeout. */
  private void await(
      boolean sending, boolean receiving, long sendSince, long receiveSince, String what) {
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
      long millis =
          Math.min(
              Waits.millisLeft(sendDeadline, Waits.SLICE_MILLIS),
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
