package dev.stoker.spark.collective;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * One TCP connection to a peer rank, non-blocking under the hood so that every wait is bounded
 * and cancellable, blocking to its caller: {@link #read} and {@link #write} return once the whole
 * buffer went through. Used by one thread at a time.
 */
final class Link implements Closeable {
  private int peer;
  private final SocketChannel channel;
  private final Selector selector;
  private final SelectionKey key;
  private final Waits waits;

  Link(int peer, SocketChannel channel, Waits waits) throws IOException {
    this.peer = peer;
    this.channel = channel;
    this.waits = waits;
    channel.configureBlocking(false);
    channel.socket().setTcpNoDelay(true);
    this.selector = Selector.open();
    this.key = channel.register(selector, 0);
  }

  /** The rank on the other side, or -1 before it said who it is. */
  int peer() {
    return peer;
  }

  void identify(int rank) {
    peer = rank;
  }

  /** Fills {@code buffer}; {@code what} names the wait in errors. */
  void read(ByteBuffer buffer, String what) {
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
      if (count == 0) {
        await(SelectionKey.OP_READ, what);
      }
    }
  }

  /** Sends every remaining byte of {@code buffers}, in order. */
  void write(String what, ByteBuffer... buffers) {
    while (remaining(buffers)) {
      long count;
      try {
        count = channel.write(buffers);
      } catch (IOException e) {
        throw lost(what, e);
      }
      if (count == 0) {
        await(SelectionKey.OP_WRITE, what);
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

  private void await(int ops, String what) {
    key.interestOps(ops);
    long start = System.nanoTime();
    try {
      while (true) {
        waits.check(what);
        int ready = selector.select(Waits.SLICE_MILLIS);
        selector.selectedKeys().clear();
        if (ready > 0) {
          return;
        }
        if (waits.expired(start)) {
          throw waits.timedOut(what + " (waiting for " + who() + ")");
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
    return new CollectiveException(what + ": the connection to " + who() + " was lost ("
        + (cause == null ? "closed by the peer" : cause.toString()) + "; did its task fail or "
        + "get killed?)", cause);
  }

  private String who() {
    return peer < 0 ? "a connecting rank" : "rank " + peer;
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
