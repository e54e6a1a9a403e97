package dev.stoker.spark.collective;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * One TCP connection to a peer rank, non-blocking under the hood so that every wait is bounded and
 * cancellable, blocking to its caller: {@link #read} and {@link #write} return once the whole
 * buffer went through. Raw during the meeting; once {@link #seal sealed}, each {@link #write} is
 * one encrypted and authenticated frame ({@link FrameSeal}) and {@link #read} hands out only bytes
 * of frames that opened, so a forged, altered or replayed byte fails the call naming the peer. Used
 * by one thread at a time.
 */
final class Link implements Closeable {
  private int peer;
  private final SocketChannel channel;
  private final String address;
  private final Selector selector;
  private final SelectionKey key;
  private final Waits waits;
  private final ByteBuffer header =
      ByteBuffer.allocate(FrameSeal.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private FrameSeal sending;
  private FrameSeal receiving;
  private ByteBuffer frame = ByteBuffer.allocateDirect(0);
  private ByteBuffer plain = ByteBuffer.allocate(0);

  /** Where {@link #readSome} is: in a frame's header, or past it in its body and tag. */
  private boolean inHeader;

  private boolean inFrame;
  private int frameLength;
  private long bytesIn;
  private long bytesOut;

  Link(int peer, SocketChannel channel, Waits waits) throws IOException {
    this.peer = peer;
    this.channel = channel;
    this.waits = waits;
    channel.configureBlocking(false);
    channel.socket().setTcpNoDelay(true);
    this.address = String.valueOf(channel.getRemoteAddress());
    this.selector = Selector.open();
    this.key = channel.register(selector, 0);
  }

  /** The rank on the other side, or -1 before it said who it is. */
  int peer() {
    return peer;
  }

  /** Switches to frames: {@code sending} seals what this side writes, {@code receiving} opens. */
  void seal(FrameSeal sending, FrameSeal receiving) {
    this.sending = sending;
    this.receiving = receiving;
  }

  /** Fills {@code buffer}; {@code what} names the wait in errors. */
  void read(ByteBuffer buffer, String what) {
    if (receiving == null) {
      readRaw(buffer, what, Waits.NONE, true);
      return;
    }
    while (buffer.hasRemaining()) {
      if (!plain.hasRemaining()) {
        nextFrame(what);
      }
      int count = Math.min(buffer.remaining(), plain.remaining());
      buffer.put(buffer.position(), plain, plain.position(), count);
      buffer.position(buffer.position() + count);
      plain.position(plain.position() + count);
    }
  }

  /** Fills {@code buffer} before {@code deadline} ({@link Waits#deadline}): the meeting's. */
  void readBefore(ByteBuffer buffer, String what, long deadline) {
    readRaw(buffer, what, deadline, false);
  }

  /**
   * Checks a frame's declared body length and readies {@code frame} for the body and its tag,
   * growing it (at most to the largest frame) when it is too small.
   */
  private void frameFor(int length, String what) {
    if (length < 0 || length > FrameSeal.MAX_BODY) {
      throw refused(
          what,
          "a frame of "
              + Integer.toUnsignedString(length)
              + " bytes (expected: "
              + "at most "
              + FrameSeal.MAX_BODY
              + ")");
    }
    int size = length + FrameSeal.TAG_BYTES;
    if (frame.capacity() < size) {
      frame =
          ByteBuffer.allocateDirect(
              Math.max(
                  size, Math.min(2 * frame.capacity(), FrameSeal.MAX_BODY + FrameSeal.TAG_BYTES)));
    }
    frame.clear().limit(size);
  }

  private void nextFrame(String what) {
    checkCount(receiving, what, "received");
    header.clear();
    readRaw(header, what, Waits.NONE, true);
    int length = header.getInt(0);
    frameFor(length, what);
    readRaw(frame, what, Waits.NONE, true);
    header.clear();
    ByteBuffer body = receiving.open(header, frame, length);
    if (body == null) {
      throw refused(what, "a frame that fails authentication");
    }
    plain = body;
  }

  private CollectiveException refused(String what, String frame) {
    return new CollectiveException(
        what
            + ": "
            + who()
            + " sent "
            + frame
            + ": forged or altered "
            + "on the way (expected: frames sealed with the key of this meeting); the connection is "
            + "closed");
  }

  private void checkCount(FrameSeal seal, String what, String verb) {
    if (seal.exhausted()) {
      throw new CollectiveException(
          what
              + ": the connection to "
              + who()
              + " has "
              + verb
              + " "
              + FrameSeal.MAX_FRAMES
              + " frames, the most one key may seal without reusing a nonce; "
              + "the connection is closed (expected: a new meeting, e.g. a new stage, before that)");
    }
  }

  private void readRaw(ByteBuffer buffer, String what, long deadline, boolean perWait) {
    while (buffer.hasRemaining()) {
      int count;
      try {
        count = channel.read(buffer);
      } catch (IOException e) {
        throw lost(what, e);
      }
      if (count < 0) {
        throw lost(what, null);
      }
      bytesIn += count;
      if (count == 0) {
        await(SelectionKey.OP_READ, what, perWait ? waits.deadline(System.nanoTime()) : deadline);
      }
    }
  }

  /** Sends every remaining byte of {@code buffers}, in order: one frame once sealed. */
  void write(String what, ByteBuffer... buffers) {
    if (sending == null) {
      writeRaw(what, Waits.NONE, true, buffers);
      return;
    }
    writeRaw(what, Waits.NONE, true, frame(what, buffers));
  }

  /**
   * Seals every remaining byte of {@code buffers} into one frame and returns what to send, in
   * order, for {@link #writeSome}: valid until the next frame. The buffers are consumed (their
   * bytes are copied into the frame).
   */
  ByteBuffer[] frame(String what, ByteBuffer... buffers) {
    long length = 0;
    for (ByteBuffer buffer : buffers) {
      length += buffer.remaining();
    }
    if (length > FrameSeal.MAX_BODY) {
      throw new IllegalArgumentException(
          what
              + ": a frame of "
              + length
              + " bytes (expected: at "
              + "most "
              + FrameSeal.MAX_BODY
              + ")");
    }
    checkCount(sending, what, "sent");
    header.clear();
    header.putInt((int) length).flip();
    ByteBuffer[] frame = sending.seal(header, buffers);
    for (ByteBuffer buffer : buffers) {
      buffer.position(buffer.limit());
    }
    return frame;
  }

  /**
   * Sends what the socket takes now of {@code frame} (from {@link #frame}) without waiting; returns
   * whether all of it went. For a caller that waits on several links at once.
   */
  boolean writeSome(String what, ByteBuffer[] frame) {
    try {
      bytesOut += channel.write(frame);
    } catch (IOException e) {
      throw lost(what, e);
    }
    return !remaining(frame);
  }

  /**
   * Reads what the socket has now of the next frame without waiting: its plain body once the whole
   * frame arrived and opened (valid until the next frame), else null. A frame that fails
   * authentication fails the call naming the peer, as {@link #read} does. Not to be mixed with
   * {@link #read} on one link.
   */
  ByteBuffer readSome(String what) {
    if (!inFrame) {
      if (!inHeader) {
        checkCount(receiving, what, "received");
        header.clear();
        inHeader = true;
      }
      if (!readNow(header, what)) {
        return null;
      }
      inHeader = false;
      frameLength = header.getInt(0);
      frameFor(frameLength, what);
      inFrame = true;
    }
    if (!readNow(frame, what)) {
      return null;
    }
    inFrame = false;
    header.clear();
    ByteBuffer body = receiving.open(header, frame, frameLength);
    if (body == null) {
      throw refused(what, "a frame that fails authentication");
    }
    return body.order(ByteOrder.LITTLE_ENDIAN);
  }

  /** One read without waiting; whether {@code buffer} is full. */
  private boolean readNow(ByteBuffer buffer, String what) {
    int count;
    try {
      count = channel.read(buffer);
    } catch (IOException e) {
      throw lost(what, e);
    }
    if (count < 0) {
      throw lost(what, null);
    }
    bytesIn += count;
    return !buffer.hasRemaining();
  }

  /** Bytes read from the socket so far, frames' headers and tags included. */
  long bytesIn() {
    return bytesIn;
  }

  /** Bytes written to the socket so far, frames' headers and tags included. */
  long bytesOut() {
    return bytesOut;
  }

  /** The socket, for a caller that waits on several links with a selector of its own. */
  SocketChannel channel() {
    return channel;
  }

  /** Sends {@code buffers} before {@code deadline}: the meeting's raw messages. */
  void writeBefore(String what, long deadline, ByteBuffer... buffers) {
    writeRaw(what, deadline, false, buffers);
  }

  private void writeRaw(String what, long deadline, boolean perWait, ByteBuffer... buffers) {
    while (remaining(buffers)) {
      long count;
      try {
        count = channel.write(buffers);
      } catch (IOException e) {
        throw lost(what, e);
      }
      bytesOut += count;
      if (count == 0) {
        await(SelectionKey.OP_WRITE, what, perWait ? waits.deadline(System.nanoTime()) : deadline);
      }
    }
  }

  private static boolean remaining(ByteBuffer[] buffers) {
    for (ByteBuffer buffer : buffers) {
      if (buffer.hasRemaining()) {
        return true;
      }
    }
    return false;
  }

  private void await(int ops, String what, long deadline) {
    key.interestOps(ops);
    try {
      while (true) {
        waits.check(what);
        int ready = selector.select(Waits.millisLeft(deadline, Waits.SLICE_MILLIS));
        selector.selectedKeys().clear();
        if (ready > 0) {
          return;
        }
        if (Waits.passed(deadline)) {
          throw waits.timedOut(what + " (waiting for " + name() + ")");
        }
      }
    } catch (IOException e) {
      throw lost(what, e);
    } finally {
      if (key.isValid()) {
        key.interestOps(0);
      }
    }
  }

  private CollectiveException lost(String what, IOException cause) {
    return new CollectiveException(
        what
            + ": the connection to "
            + name()
            + " was lost ("
            + (cause == null ? "closed by the peer" : cause.toString())
            + "; did its task fail or "
            + "get killed?)",
        cause);
  }

  /** The peer: "rank 1". */
  String name() {
    return peer < 0 ? "a connecting rank" : "rank " + peer;
  }

  /** The peer, with its address: "rank 1 (/10.0.0.7:40312)". */
  String who() {
    return name() + " (" + address + ")";
  }

  @Override
  public void close() throws IOException {
    try {
      selector.close();
    } finally {
      channel.close();
    }
  }
}
