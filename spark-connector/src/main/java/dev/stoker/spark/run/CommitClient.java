package dev.stoker.spark.run;

import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.RankRuns;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A rank's end of the commits: one connection to the driver's {@link CommitServer} a request. */
final class CommitClient {
  private static final int TIMEOUT_MILLIS = 30_000;

  private CommitClient() {}

  /** Sends rank {@code rank}'s commit of {@code state} and waits until the driver has it. */
  static void commit(CommitEndpoint endpoint, int rank, int attempt, LoaderState state)
      throws IOException {
    byte[] text = state.toString().getBytes(StandardCharsets.UTF_8);
    ask(
        endpoint,
        CommitServer.COMMIT,
        rank,
        attempt,
        out -> {
          out.writeInt(text.length);
          out.write(text);
        });
  }

  /** Where rank {@code rank} starts: the state and its runs for the state's epoch, or null. */
  static CommitLog.Start start(CommitEndpoint endpoint, int rank, int attempt) throws IOException {
    byte[] reply = ask(endpoint, CommitServer.START, rank, attempt, out -> {});
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(reply));
    if (!in.readBoolean()) {
      return null;
    }
    byte[] text = new byte[in.readInt()];
    in.readFully(text);
    byte[] runs = new byte[in.readInt()];
    in.readFully(runs);
    try (ObjectInputStream objects = new ObjectInputStream(new ByteArrayInputStream(runs))) {
      objects.setObjectInputFilter(CommitClient::allowed);
      return new CommitLog.Start(
          LoaderState.parse(new String(text, StandardCharsets.UTF_8)),
          (RankRuns) objects.readObject());
    } catch (ClassNotFoundException | ClassCastException e) {
      throw new IOException("the driver's runs for rank " + rank + " do not read back: " + e, e);
    }
  }

  /** Only the plan's own records and the JDK's collections may be read. */
  private static ObjectInputFilter.Status allowed(ObjectInputFilter.FilterInfo info) {
    Class<?> type = info.serialClass();
    if (type == null || type.isPrimitive() || type.isArray()) {
      return ObjectInputFilter.Status.UNDECIDED;
    }
    String name = type.getName();
    return name.startsWith("dev.stoker.spark.parquet.")
            || name.startsWith("java.util.")
            || name.startsWith("java.lang.")
        ? ObjectInputFilter.Status.ALLOWED
        : ObjectInputFilter.Status.REJECTED;
  }

  private interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] ask(CommitEndpoint endpoint, byte kind, int rank, int attempt, Body body)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(kind);
      out.writeInt(rank);
      out.writeInt(attempt);
      body.write(out);
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      CommitWire.write(
          new DataOutputStream(socket.getOutputStream()), endpoint.secret(), bytes.toByteArray());
      return CommitWire.read(new DataInputStream(socket.getInputStream()), endpoint.secret());
    }
  }
}
