package dev.stoker.spark.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP proxy on the loopback in front of the S3 test server that answers the first GET of each
 * object range with S3's throttling reply ({@code 503 SlowDown}), as a store does under a request
 * storm, and passes everything else through, the same range asked again included. Each request is
 * sent on with {@code Connection: close}, so that every request comes through a new connection and
 * is looked at.
 */
public final class ThrottlingProxy implements AutoCloseable {
  private static final String SLOW_DOWN =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
          + "<Message>Please reduce your request rate.</Message><RequestId>stoker-test</RequestId>"
          + "</Error>";

  private final ServerSocket server;
  private final int target;
  private final Set<String> asked = ConcurrentHashMap.newKeySet();
  private final AtomicLong throttled = new AtomicLong();
  private volatile boolean closed;

  private ThrottlingProxy(ServerSocket server, int target) {
    this.server = server;
    this.target = target;
  }

  /** A proxy to the loopback's {@code target} port. */
  public static ThrottlingProxy start(int target) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      ThrottlingProxy proxy = new ThrottlingProxy(server, target);
      daemon("stoker-throttling-proxy", proxy::accept);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** How many requests were answered with 503 SlowDown. */
  public long throttled() {
    return throttled.get();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        daemon("stoker-throttling-proxy-request", () -> serve(client));
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void serve(Socket client) {
    try (client) {
      String head = head(client.getInputStream());
      if (head == null) {
        return;
      }
      String lower = head.toLowerCase(Locale.ROOT);
      if (lower.startsWith("get ") && lower.contains("\r\nrange:") && asked.add(range(lower))) {
        throttled.incrementAndGet();
        byte[] body = SLOW_DOWN.getBytes(StandardCharsets.UTF_8);
        String reply =
            "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
                + body.length
                + "\r\nConnection: close\r\n\r\n";
        OutputStream out = client.getOutputStream();
        out.write(reply.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        return;
      }
      try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target)) {
        upstream.getOutputStream().write(closing(head).getBytes(StandardCharsets.ISO_8859_1));
        Thread body =
            daemon(
                "stoker-throttling-proxy-body",
                () -> copy(client, upstream)); // a PUT's body, or nothing
        copy(upstream, client);
        body.interrupt();
      }
    } catch (IOException e) {
      // the client or the server went away: the client sees its connection end
    }
  }

  /** The request line and range of a ranged GET's head (lower case). */
  private static String range(String head) {
    String requestLine = head.substring(0, head.indexOf("\r\n"));
    int at = head.indexOf("\r\nrange:");
    return requestLine + " " + head.substring(at + 2, head.indexOf("\r\n", at + 2));
  }

  /** The request's head (up to the blank line), or null if the connection ends first. */
  private static String head(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.write(b);
      matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (head.size() > 64 << 10) {
        throw new IOException("a request head of more than 64 KiB");
      }
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /** {@code head} with its Connection header set to close. */
  private static String closing(String head) {
    StringBuilder out = new StringBuilder();
    for (String line : head.substring(0, head.length() - 4).split("\r\n")) {
      if (!line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
        out.append(line).append("\r\n");
      }
    }
    return out.append("Connection: close\r\n\r\n").toString();
  }

  private static void copy(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buffer = new byte[64 << 10];
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException e) {
      // one side closed
    }
  }

  private static Thread daemon(String name, Runnable work) {
    Thread thread = new Thread(work, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
