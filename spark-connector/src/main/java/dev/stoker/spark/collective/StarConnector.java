package dev.stoker.spark.collective;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Connects the ranks in a star around rank 0, with one rendezvous: rank 0 listens and tells every
 * rank where (host, port and a token for this meeting), the others connect and say who they are
 * (rank and stage attempt); rank 0 answers each once all are in. Every rank takes part in the
 * rendezvous even when rank 0 could not listen, so that none is left waiting in it.
 */
final class StarConnector {
  static final int MAGIC = 0x53544b52;
  static final int OK = 0;
  static final int ERROR = 1;
  private static final String FAILED = "failed:";
  private static final int HELLO_BYTES = 20;

  private StarConnector() {}

  /** Rank 0's side: the links to ranks 1 .. worldSize - 1, index = rank - 1. */
  static Link[] root(int worldSize, int attempt, String host, Rendezvous rendezvous,
      Waits waits) {
    ServerSocketChannel server = null;
    String address;
    long token = ThreadLocalRandom.current().nextLong();
    try {
      server = ServerSocketChannel.open();
      server.bind(new InetSocketAddress(host, 0), worldSize);
      int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
      address = host + ":" + port + ":" + token;
    } catch (IOException | RuntimeException e) {
      closeQuietly(server);
      String why = "rank 0 could not listen on " + host + ": " + e;
      rendezvous.allGather(FAILED + why);
      throw new CollectiveException(why + " (expected: an address of this executor that the "
          + "other executors can reach)", e);
    }
    try (ServerSocketChannel listening = server) {
      rendezvous.allGather(address);
      return accept(listening, worldSize, attempt, token, waits);
    } catch (IOException e) {
      throw new CollectiveException("rank 0: accepting the other ranks failed: " + e, e);
    }
  }

  private static Link[] accept(ServerSocketChannel server, int worldSize, int attempt,
      long token, Waits waits) throws IOException {
    Link[] links = new Link[worldSize - 1];
    int connected = 0;
    long start = System.nanoTime();
    server.configureBlocking(false);
    try (Selector selector = Selector.open()) {
      server.register(selector, SelectionKey.OP_ACCEPT);
      while (connected < links.length) {
        SocketChannel channel = server.accept();
        if (channel == null) {
          waits.check("rank 0 waiting for the ranks to connect");
          if (waits.expired(start)) {
            throw waits.timedOut("rank 0 waiting for the ranks to connect: " + connected
                + " of " + links.length + " connected");
          }
          selector.select(Waits.SLICE_MILLIS);
          selector.selectedKeys().clear();
          continue;
        }
        Link link = new Link(-1, channel, waits);
        String refusal = greet(link, worldSize, attempt, token, links);
        if (refusal == null) {
          links[link.peer() - 1] = link;
          connected++;
        } else {
          refuse(link, refusal);
        }
      }
      for (Link link : links) {
        link.write("rank 0 welcoming rank " + link.peer(), reply(OK, ""));
      }
      return links;
    } catch (RuntimeException | IOException e) {
      for (Link link : links) {
        closeQuietly(link);
      }
      throw e;
    }
  }

  /** Reads who connected: null if welcome, else why not (a stranger gets no answer: ""). */
  private static String greet(Link link, int worldSize, int attempt, long token, Link[] links) {
    ByteBuffer hello = ByteBuffer.allocate(HELLO_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    link.read(hello, "rank 0 reading who connected");
    hello.flip();
    if (hello.getInt() != MAGIC || hello.getLong() != token) {
      return "";
    }
    int rank = hello.getInt();
    int theirAttempt = hello.getInt();
    if (theirAttempt != attempt) {
      return "rank " + rank + " of stage attempt " + theirAttempt + " reached rank 0 of attempt "
          + attempt;
    }
    if (rank < 1 || rank >= worldSize || links[rank - 1] != null) {
      return "rank " + rank + " connected to rank 0 " + (rank < 1 || rank >= worldSize
          ? "(expected: a rank in 1.." + (worldSize - 1) + ")" : "twice");
    }
    link.identify(rank);
    return null;
  }

  private static void refuse(Link link, String refusal) {
    try {
      if (!refusal.isEmpty()) {
        link.write("rank 0 refusing a connection", reply(ERROR, refusal));
      }
    } catch (RuntimeException e) {
      // the refused side learns it from the closed connection
    } finally {
      closeQuietly(link);
    }
  }

  /** A rank other than 0: its link to rank 0, welcomed. */
  static Link peer(int rank, int attempt, Rendezvous rendezvous, Waits waits) {
    String address = rendezvous.allGather("")[0];
    if (address.startsWith(FAILED)) {
      throw new CollectiveException("rank " + rank + ": " + address.substring(FAILED.length()));
    }
    int tokenAt = address.lastIndexOf(':');
    int portAt = address.lastIndexOf(':', tokenAt - 1);
    String host = address.substring(0, portAt);
    int port = Integer.parseInt(address.substring(portAt + 1, tokenAt));
    long token = Long.parseLong(address.substring(tokenAt + 1));
    SocketChannel channel = null;
    try {
      channel = SocketChannel.open();
      long millis = waits.timeout().isZero() ? 0 : Math.max(1, waits.timeout().toMillis());
      channel.socket().connect(new InetSocketAddress(host, port),
          (int) Math.min(Integer.MAX_VALUE, millis));
    } catch (IOException e) {
      closeQuietly(channel);
      throw new CollectiveException("rank " + rank + " could not connect to rank 0 at " + host
          + ":" + port + ": " + e + " (expected: executors that reach each other over TCP)", e);
    }
    Link link;
    try {
      link = new Link(0, channel, waits);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new CollectiveException("rank " + rank + ": setting up its connection failed: " + e,
          e);
    }
    try {
      ByteBuffer hello = ByteBuffer.allocate(HELLO_BYTES).order(ByteOrder.LITTLE_ENDIAN)
          .putInt(MAGIC).putLong(token).putInt(rank).putInt(attempt).flip();
      String what = "rank " + rank + " connecting to rank 0";
      link.write(what, hello);
      String refusal = readReply(link, what);
      if (refusal != null) {
        throw new CollectiveException("rank " + rank + ": rank 0 refused it: " + refusal);
      }
      return link;
    } catch (RuntimeException e) {
      closeQuietly(link);
      throw e;
    }
  }

  /** A status and a message: what rank 0 answers a connection. */
  static ByteBuffer reply(int status, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(8 + text.length).order(ByteOrder.LITTLE_ENDIAN).putInt(status)
        .putInt(text.length).put(text).flip();
  }

  /** Null for OK, else the message. */
  static String readReply(Link link, String what) {
    ByteBuffer head = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    link.read(head, what);
    head.flip();
    int status = head.getInt();
    ByteBuffer text = ByteBuffer.allocate(head.getInt());
    link.read(text, what);
    return status == OK ? null : new String(text.array(), StandardCharsets.UTF_8);
  }

  static void closeQuietly(AutoCloseable closeable) {
    if (closeable != null) {
      try {
        closeable.close();
      } catch (Exception e) {
        // closing after a failure: the failure is what the caller reports
      }
    }
  }
}
