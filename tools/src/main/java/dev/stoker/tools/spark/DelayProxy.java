package dev.stoker.tools.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on the loopback that delivers every byte a set delay after it arrived, in each
 * direction: the propagation delay of a long link, where the kernel has no {@code netem}. A
 * request's answer starts a round trip later; the rate is left to the link behind it ({@code tc
 * tbf}). Each connection is two pipes, each a reader that stamps what it reads and a writer that
 * sends it when due. A pipe's buffers go back to its reader once written, a few of them: the proxy
 * shares the cores and the heap of the JVM it measures, and a fresh buffer for every read would
 * cost that JVM zeroed memory and collections in proportion to the bytes carried.
 */
final class DelayProxy implements AutoCloseable {
  private static final int CHUNK = 256 << 10;

  /**
   * Written buffers a pipe keeps for its next reads: enough for a steady stream, while a burst's
   * extra buffers go to the collector. Kept without a bound, every pooled connection would hold the
   * most its pipe ever had in flight (megabytes at 0.5 GB/s) for as long as it lives.
   */
  private static final int SPARE_CHUNKS = 8;

  private final ServerSocket server;
  private final InetSocketAddress target;
  private volatile long oneWayNanos;
  private final List<Socket> sockets = new ArrayList<>();
  private final AtomicInteger threads = new AtomicInteger();
  private volatile boolean closed;

  /** A chunk of bytes and when it is due at the other end. */
  private record Chunk(byte[] bytes, int length, long due) {}

  private static final Chunk END = new Chunk(new byte[0], 0, 0);

  /** A proxy to {@code target} that delays nothing until {@link #delay} says. */
  DelayProxy(InetSocketAddress target) {
    this.target = target;
    try {
      this.server = new ServerSocket(0, 256, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException("could not listen on the loopback: " + e.getMessage(), e);
    }
    start("accept", this::accept);
  }

  /** Delays what is read from now on by {@code oneWayMillis}, in each direction. */
  void delay(double oneWayMillis) {
    oneWayNanos = (long) (oneWayMillis * 1e6);
  }

  /** The address to connect to instead of the target. */
  InetSocketAddress address() {
    return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        upstream.connect(target, 10_000);
        for (Socket socket : List.of(client, upstream)) {
          socket.setTcpNoDelay(true);
        }
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(upstream);
        }
        Connection connection = new Connection(client, upstream);
        pipe(client, upstream, connection);
        pipe(upstream, client, connection);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pipe(Socket from, Socket to, Connection connection) throws IOException {
    InputStream in = from.getInputStream();
    OutputStream out = to.getOutputStream();
    BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    BlockingQueue<byte[]> written = new ArrayBlockingQueue<>(SPARE_CHUNKS);
    start(
        "read",
        () -> {
          try {
            while (true) {
              byte[] reused = written.poll();
              byte[] bytes = reused != null ? reused : new byte[CHUNK];
              int n = in.read(bytes);
              if (n < 0) {
                break;
              }
              queue.add(new Chunk(bytes, n, System.nanoTime() + oneWayNanos));
            }
          } catch (IOException e) {
            // the connection ended
          }
          queue.add(END);
        });
    start(
        "write",
        () -> {
          try {
            while (true) {
              Chunk chunk = queue.take();
              if (chunk == END) {
                to.shutdownOutput();
                connection.halfClosed();
                return;
              }
              long wait = chunk.due() - System.nanoTime();
              if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
              }
              out.write(chunk.bytes(), 0, chunk.length());
              out.flush();
              written.offer(chunk.bytes()); // dropped when the spares are full
            }
          } catch (IOException | InterruptedException e) {
            connection.drop();
          }
        });
  }

  /** A client's connection and its upstream: closed and forgotten once both directions end. */
  private final class Connection {
    private final Socket client;
    private final Socket upstream;
    private final AtomicInteger open = new AtomicInteger(2);

    Connection(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void halfClosed() {
      if (open.decrementAndGet() == 0) {
        drop();
      }
    }

    void drop() {
      closeQuietly(client);
      closeQuietly(upstream);
      synchronized (sockets) {
        sockets.remove(client);
        sockets.remove(upstream);
      }
    }
  }

  private void start(String role, Runnable work) {
    Thread thread =
        new Thread(work, "stoker-delay-proxy-" + role + "-" + threads.incrementAndGet());
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    Socket[] open;
    synchronized (sockets) {
      open = sockets.toArray(Socket[]::new);
      sockets.clear();
    }
    Arrays.stream(open).forEach(DelayProxy::closeQuietly);
  }
}
