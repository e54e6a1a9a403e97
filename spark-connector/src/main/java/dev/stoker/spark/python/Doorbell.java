package dev.stoker.spark.python;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * How one side of a rank's file wakes the other when it sleeps: a Unix-domain socket beside the
 * file, to which Python connects when it attaches. Only single bytes cross it, and only when the
 * other side has said (in the control block) that it sleeps; the batches never do. A side that
 * sleeps wakes at once on a ring, on the other process's end (the socket closes with it), or on
 * {@link #close()}, so neither side polls with growing pauses nor spins a processor away from the
 * threads that fill the batches.
 *
 * <p>The JVM's side: made with the file, it accepts Python's connection whenever it next rings or
 * waits. One thread rings and waits (the rank's pump); {@link #close()} may come from any other,
 * deletes the socket's file and wakes the pump.
 */
final class Doorbell implements AutoCloseable {
  /** Longest path of a Unix-domain socket (sun_path, with its terminating zero). */
  static final int MAX_PATH_BYTES = 107;

  private final Path path;

  /** This process's user: the socket file's owner. */
  private final UserPrincipal owner;

  private final ServerSocketChannel server;
  private final Selector selector;
  private final ByteBuffer ring = ByteBuffer.allocateDirect(1);
  private final ByteBuffer drain = ByteBuffer.allocateDirect(64);
  private SocketChannel peer;
  private boolean peerGone;
  private volatile boolean closed;

  private Doorbell(Path path, UserPrincipal owner, ServerSocketChannel server, Selector selector) {
    this.path = path;
    this.owner = owner;
    this.server = server;
    this.selector = selector;
  }

  /**
   * A bell at {@code path}, or null where none can be made there (a path longer than {@value
   * #MAX_PATH_BYTES} bytes, no Unix-domain sockets): the sides then poll.
   */
  static Doorbell open(Path path) {
    if (path.toString().getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
      return null;
    }
    ServerSocketChannel server = null;
    Selector selector = null;
    try {
      server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      server.bind(UnixDomainSocketAddress.of(path));
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
      server.configureBlocking(false);
      selector = Selector.open();
      server.register(selector, SelectionKey.OP_ACCEPT);
      return new Doorbell(path, Files.getOwner(path), server, selector);
    } catch (IOException | UnsupportedOperationException e) {
      closeQuietly(selector);
      closeQuietly(server);
      try {
        Files.deleteIfExists(path);
      } catch (IOException ignored) {
        // nothing was bound there, or it goes with the folder's stale files
      }
      return null;
    }
  }

  Path path() {
    return path;
  }

  /** Wakes Python if it is connected; never blocks (a full socket already holds a ring). */
  synchronized void ring() {
    if (closed || peerGone) {
      return;
    }
    try {
      if (peer == null && !accept()) {
        return; // not connected: Python has not attached, so it does not sleep on the bell
      }
      ring.clear();
      peer.write(ring);
    } catch (IOException e) {
      peerGone = true; // Python ended; its side of the control block says the rest
    }
  }

  /**
   * Sleeps until a ring, Python's end, {@link #close()}, or {@code nanos}: whichever comes first.
   * The caller checks the control block again after it, whatever woke it.
   *
   * @return false once Python's side of the socket is gone (its process ended or it closed)
   */
  boolean await(long nanos) {
    if (closed) {
      return true;
    }
    try {
      synchronized (this) {
        if (peerGone) {
          return false;
        }
        if (peer == null) {
          accept(); // not connected yet: the select below waits for the connection too
        }
      }
      selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
      synchronized (this) {
        selector.selectedKeys().clear();
        if (peer == null) {
          accept();
          return true;
        }
        drain.clear();
        if (peer.read(drain) < 0) {
          peerGone = true;
          return false;
        }
      }
      return true;
    } catch (ClosedChannelException | ClosedSelectorException e) {
      return true; // closed meanwhile: the caller sees why in its stop flag
    } catch (IOException e) {
      synchronized (this) {
        peerGone = true;
      }
      return false;
    }
  }

  /**
   * Called holding {@code this}: takes Python's connection if it has come. A connection from
   * another user (the file is its owner's only, but a folder may be shared) is closed unread.
   */
  private boolean accept() throws IOException {
    SocketChannel accepted = server.accept();
    if (accepted == null) {
      return false;
    }
    if (!sameUser(accepted)) {
      closeQuietly(accepted);
      return false;
    }
    accepted.configureBlocking(false);
    accepted.register(selector, SelectionKey.OP_READ);
    peer = accepted;
    server.keyFor(selector).cancel();
    return true;
  }

  /** Closes the socket and deletes its file, waking a thread in {@link #await}; safe twice. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    selector.wakeup();
    synchronized (this) {
      closeQuietly(peer);
      closeQuietly(server);
      closeQuietly(selector);
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException ignored) {
      // a file left behind goes with the folder's stale files (its name holds this process id)
    }
  }

  private boolean sameUser(SocketChannel peer) throws IOException {
    UnixDomainPrincipal principal = peer.getOption(ExtendedSocketOptions.SO_PEERCRED);
    return principal.user().equals(owner);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception ignored) {
      // closing what is being given up
    }
  }
}
