package dev.stoker.spark.collective;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What an attacker does on the network, for the tests: a stranger's socket that learned rank 0's
 * port by a scan, and a relay on the path between rank 1 and rank 0 that sees, holds and edits the
 * bytes going through.
 */
final class Wire {
  private Wire() {}

  /** Where rank 0 listens, from its rendezvous message: what a port scan finds. */
  static InetSocketAddress listening(String message) {
    int last = message.lastIndexOf(':');
    int portAt = message.lastIndexOf(':', last - 1);
    return new InetSocketAddress(
        message.substring(0, portAt), Integer.parseInt(message.substring(portAt + 1, last)));
  }

  /** Rank 0's message with its host and port replaced by {@code to}, the rest kept. */
  static String redirect(String message, InetSocketAddress to) {
    int last = message.lastIndexOf(':');
    return to.getHostString() + ":" + to.getPort() + message.substring(last);
  }

  static Socket connect(InetSocketAddress address) {
    try {
      return new Socket(address.getAddress(), address.getPort());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether rank 0 closed {@code socket} within {@code millis} (reads and drops what it sent). */
  static boolean dropped(Socket socket, long millis) {
    long deadline = System.nanoTime() + millis * 1_000_000;
    try {
      InputStream in = socket.getInputStream();
      byte[] sink = new byte[4096];
      while (System.nanoTime() < deadline) {
        socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        try {
          if (in.read(sink) < 0) {
            return true;
          }
        } catch (SocketTimeoutException e) {
          return false;
        }
      }
      return false;
    } catch (IOException e) {
      return true; // reset by rank 0
    }
  }

  /** Writes {@code bytes} one at a time, every {@code millis}, until done or dropped. */
  static Thread dribble(Socket socket, byte[] bytes, long millis) {
    Thread thread =
        new Thread(
            () -> {
              try {
                OutputStream out = socket.getOutputStream();
                for (byte b : bytes) {
                  out.write(b);
                  out.flush();
                  Thread.sleep(millis);
                }
              } catch (IOException | InterruptedException e) {
                // dropped, or the test is over
              }
            },
            "test-slow-talker");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  static void closeQuietly(AutoCloseable closeable) {
    try {
      if (closeable != null) {
        closeable.close();
      }
    } catch (Exception e) {
      // the test is over
    }
  }

  /**
   * A relay between rank 1 and rank 0: rank 1 is told to connect to it. It holds rank 1's first
   * bytes (its hello, as seen on the wire) until {@link #release}, then passes everything on,
   * letting {@link Edit} change what goes from rank 1 to rank 0, and records both directions.
   */
  static final class Relay implements AutoCloseable {
    /** Changes {@code count} bytes at stream offset {@code offset} from rank 1, in place. */
    interface Edit {
      void apply(long offset, byte[] bytes, int count);
    }

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Edit edit;
    private final CountDownLatch released = new CountDownLatch(1);
    final CompletableFuture<byte[]> hello = new CompletableFuture<>();
    final ByteArrayOutputStream up = new ByteArrayOutputStream();
    final ByteArrayOutputStream down = new ByteArrayOutputStream();
    private volatile Socket fromRank;
    private volatile Socket toRoot;

    Relay(InetSocketAddress target, boolean hold, Edit edit) throws IOException {
      this.server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
      this.target = target;
      this.edit = edit;
      if (!hold) {
        released.countDown();
      }
      Thread thread = new Thread(this::run, "test-relay");
      thread.setDaemon(true);
      thread.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    /** The local port of the relay's connection to rank 0: the address rank 0 sees. */
    int upstreamPort() {
      return toRoot.getLocalPort();
    }

    /** Every byte that went through, both ways. */
    byte[] sent() {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      synchronized (up) {
        all.writeBytes(up.toByteArray());
      }
      synchronized (down) {
        all.writeBytes(down.toByteArray());
      }
      return all.toByteArray();
    }

    void release() {
      released.countDown();
    }

    private void run() {
      try {
        fromRank = server.accept();
        byte[] first = new byte[4096];
        int count = fromRank.getInputStream().read(first);
        hello.complete(Arrays.copyOf(first, Math.max(count, 0)));
        released.await(30, TimeUnit.SECONDS);
        toRoot = new Socket(target.getAddress(), target.getPort());
        long[] offset = {0};
        forward(toRoot.getOutputStream(), first, Math.max(count, 0), offset, up, edit);
        Thread back = new Thread(() -> pump(toRoot, fromRank, down, null), "test-relay-down");
        back.setDaemon(true);
        back.start();
        pumpFrom(fromRank, toRoot, offset);
      } catch (IOException | InterruptedException e) {
        hello.complete(new byte[0]);
      } finally {
        close();
      }
    }

    private void pumpFrom(Socket from, Socket to, long[] offset) {
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        byte[] buffer = new byte[65536];
        int count;
        while ((count = in.read(buffer)) >= 0) {
          forward(out, buffer, count, offset, up, edit);
        }
      } catch (IOException e) {
        // either side closed
      }
    }

    private static void pump(Socket from, Socket to, ByteArrayOutputStream record, Edit edit) {
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        byte[] buffer = new byte[65536];
        int count;
        long[] offset = {0};
        while ((count = in.read(buffer)) >= 0) {
          forward(out, buffer, count, offset, record, edit);
        }
      } catch (IOException e) {
        // either side closed
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }

    private static void forward(
        OutputStream out,
        byte[] bytes,
        int count,
        long[] offset,
        ByteArrayOutputStream record,
        Edit edit)
        throws IOException {
      if (edit != null) {
        edit.apply(offset[0], bytes, count);
      }
      synchronized (record) {
        record.write(bytes, 0, count);
      }
      offset[0] += count;
      out.write(bytes, 0, count);
      out.flush();
    }

    @Override
    public void close() {
      closeQuietly(server);
      closeQuietly(fromRank);
      closeQuietly(toRoot);
    }
  }
}
