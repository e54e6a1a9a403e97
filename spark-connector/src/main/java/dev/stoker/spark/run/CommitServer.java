package dev.stoker.spark.run;

import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.util.JoinedThreads;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's end of the ranks' commits, for one run: a server socket whose connections each carry
 * one authenticated request, a commit (recorded in the {@link CommitLog}) or a rank asking where to
 * start (answered with the log's common state and the rank's runs). A connection that fails
 * authentication or times out is dropped, and the ranks go on.
 */
final class CommitServer implements AutoCloseable {
  static final byte COMMIT = 1;
  static final byte START = 2;
  private static final Logger LOG = LoggerFactory.getLogger(CommitServer.class);
  private static final int READ_TIMEOUT_MILLIS = 30_000;

  /** How long the acceptor waits after a failed accept, so a lasting failure does not spin. */
  private static final long ACCEPT_BACKOFF_MILLIS = 100;

  private final CommitLog log;
  private final byte[] secret = new byte[32];
  private final ServerSocket server;
  private final Thread acceptor;
  private final ExecutorService handlers;

  /** The handlers' threads where this server made them, joined on close; else null. */
  private final JoinedThreads handlerThreads;

  /** Listens on {@code host} (any free port). */
  CommitServer(CommitLog log, String host) throws IOException {
    this(log, host, new JoinedThreads("stoker-commits-handler-"));
  }

  private CommitServer(CommitLog log, String host, JoinedThreads threads) throws IOException {
    this(log, host, Executors.newFixedThreadPool(4, threads), threads);
  }

  /** Listens on {@code host}, handling each connection on {@code handlers} (shut down on close). */
  CommitServer(CommitLog log, String host, ExecutorService handlers) throws IOException {
    this(log, host, handlers, null);
  }

  private CommitServer(
      CommitLog log, String host, ExecutorService handlers, JoinedThreads handlerThreads)
      throws IOException {
    this.log = log;
    this.handlers = handlers;
    this.handlerThreads = handlerThreads;
    new SecureRandom().nextBytes(secret);
    this.server = new ServerSocket();
    try {
      server.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
    } catch (IOException | RuntimeException e) {
      server.close();
      handlers.shutdownNow();
      throw e;
    }
    this.acceptor = new Thread(this::accept, "stoker-commits");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Where ranks reach this server, with what their states are made of. */
  CommitEndpoint endpoint(
      String advertised,
      int orderEpoch,
      boolean orderFollowsEpoch,
      int windowRows,
      dev.stoker.loader.state.InputFingerprint input) {
    return endpoint(advertised, orderEpoch, orderFollowsEpoch, windowRows, 0, input);
  }

  /** {@link #endpoint}, the ranks reading the {@code orderStreams} streams of a global order. */
  CommitEndpoint endpoint(
      String advertised,
      int orderEpoch,
      boolean orderFollowsEpoch,
      int windowRows,
      int orderStreams,
      dev.stoker.loader.state.InputFingerprint input) {
    return new CommitEndpoint(
        advertised,
        server.getLocalPort(),
        secret.clone(),
        orderEpoch,
        orderFollowsEpoch,
        windowRows,
        orderStreams,
        input);
  }

  /**
   * Accepts connections until the server is closed, whatever fails on the way: a failed accept or a
   * connection that cannot be handed to a handler (its socket is closed, so that rank's client sees
   * the failure at once) is logged and the next connection accepted, since every rank's commits
   * depend on this loop.
   */
  private void accept() {
    while (!server.isClosed()) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (Throwable t) {
        if (server.isClosed()) {
          return;
        }
        LOG.warn("stoker: accepting a commit connection failed; accepting the next", t);
        pause();
        continue;
      }
      try {
        handlers.execute(() -> handle(socket));
      } catch (Throwable t) {
        closeQuietly(socket);
        if (server.isClosed()) {
          return;
        }
        LOG.warn(
            "stoker: a commit connection from {} could not be handled; accepting the next",
            socket.getRemoteSocketAddress(),
            t);
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(ACCEPT_BACKOFF_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // the connection is dropped either way
    }
  }

  private void handle(Socket socket) {
    try (socket) {
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
      DataInputStream in = new DataInputStream(socket.getInputStream());
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      DataInputStream request =
          new DataInputStream(new ByteArrayInputStream(CommitWire.read(in, secret)));
      byte kind = request.readByte();
      int rank = request.readInt();
      int attempt = request.readInt();
      if (kind == COMMIT) {
        byte[] text = new byte[request.readInt()];
        request.readFully(text);
        log.commit(rank, attempt, LoaderState.parse(new String(text, StandardCharsets.UTF_8)));
        CommitWire.write(out, secret, new byte[] {0});
      } else if (kind == START) {
        CommitWire.write(out, secret, start(log.start(rank, attempt)));
      } else {
        throw new IOException("commit request of kind " + kind + " (expected: 1 or 2)");
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "stoker: a commit request from {} was dropped: {}",
          socket.getRemoteSocketAddress(),
          e.toString());
    }
  }

  private static byte[] start(CommitLog.Start start) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeBoolean(start != null);
      if (start != null) {
        byte[] text = start.state().toString().getBytes(StandardCharsets.UTF_8);
        out.writeInt(text.length);
        out.write(text);
        ByteArrayOutputStream runs = new ByteArrayOutputStream();
        try (ObjectOutputStream objects = new ObjectOutputStream(runs)) {
          objects.writeObject(start.runs());
        }
        out.writeInt(runs.size());
        runs.writeTo(out);
      }
    }
    return bytes.toByteArray();
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      LOG.warn("stoker: closing the commit server failed", e);
    }
    handlers.shutdownNow();
    try {
      acceptor.join(TimeUnit.SECONDS.toMillis(5));
      handlers.awaitTermination(5, TimeUnit.SECONDS);
      if (handlerThreads != null) {
        handlerThreads.join(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
