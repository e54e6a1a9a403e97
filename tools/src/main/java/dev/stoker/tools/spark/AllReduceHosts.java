package dev.stoker.tools.spark;

import dev.stoker.spark.collective.Collective;
import dev.stoker.spark.collective.Rendezvous;
import dev.stoker.spark.collective.Waits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * One rank of the {@code allreduce} benchmark as a process of its own, so that ranks can run on
 * separate hosts (machines, or network namespaces with shaped links: {@code
 * scripts/allreduce-netns.sh}): {@code java -cp ... dev.stoker.tools.spark.AllReduceHosts RANK
 * WORLD RENDEZVOUS_HOST:PORT LISTEN_HOST FLOATS[,FLOATS...] REPEATS LINKS LINK_GB_S [JSON]}. The
 * ranks meet through a plain TCP rendezvous at rank 0's address (standing in for Spark's barrier
 * channel, which a benchmark has no stage for: it carries the meeting's secret in clear, so run it
 * only on a network of your own), then connect and reduce exactly as in a Spark stage. Rank 0
 * prints the figures, and writes their JSON to {@code JSON} if given.
 */
public final class AllReduceHosts {
  private static final Duration WAIT = Duration.ofMinutes(2);

  private AllReduceHosts() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 8) {
      System.err.println(
          "usage: AllReduceHosts RANK WORLD RENDEZVOUS_HOST:PORT LISTEN_HOST "
              + "FLOATS[,FLOATS...] REPEATS LINKS LINK_GB_S [JSON]");
      System.exit(2);
    }
    int rank = Integer.parseInt(args[0]);
    int world = Integer.parseInt(args[1]);
    String rendezvous = args[2];
    String listen = args[3];
    List<Integer> floats = Arrays.stream(args[4].split(",")).map(Integer::valueOf).toList();
    int repeats = Integer.parseInt(args[5]);
    String links = args[6];
    Double limit = args[7].equals("-") ? null : Double.valueOf(args[7]);
    AllReduceBench.Config config = new AllReduceBench.Config(List.of(world), floats, repeats, 2);
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    try (Collective collective =
        Collective.connect(rank, world, 0, listen, tcp(rank, world, rendezvous), Waits.of(WAIT))) {
      List<AllReduceResult.Row> rows =
          AllReduceBench.measure(
              collective,
              config,
              links,
              limit,
              rank == 0 ? new PrintWriter(System.err, true, StandardCharsets.UTF_8) : null);
      if (rank == 0) {
        AllReduceResult result = new AllReduceResult(config, rows);
        result.print(out);
        if (args.length > 8) {
          Files.writeString(Path.of(args[8]), result.json());
          out.println("json: " + args[8]);
        }
      }
    }
    out.flush();
  }

  /** An allGather through rank 0's socket at {@code address}: once, for the meeting. */
  static Rendezvous tcp(int rank, int world, String address) {
    int portAt = address.lastIndexOf(':');
    InetSocketAddress at =
        new InetSocketAddress(
            address.substring(0, portAt), Integer.parseInt(address.substring(portAt + 1)));
    return message -> {
      try {
        return rank == 0 ? gather(world, at, message) : send(rank, world, at, message);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "rank " + rank + ": the rendezvous at " + address + " failed: " + e, e);
      }
    };
  }

  private static String[] gather(int world, InetSocketAddress at, String message)
      throws IOException {
    String[] all = new String[world];
    all[0] = message;
    Socket[] peers = new Socket[world];
    try (ServerSocket server = new ServerSocket(at.getPort(), world, at.getAddress())) {
      server.setSoTimeout((int) WAIT.toMillis());
      for (int i = 1; i < world; i++) {
        Socket peer = server.accept();
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        int tab = line.indexOf('\t');
        int rank = Integer.parseInt(line.substring(0, tab));
        peers[rank] = peer;
        all[rank] = line.substring(tab + 1);
      }
      byte[] answer = (String.join("\n", all) + "\n").getBytes(StandardCharsets.UTF_8);
      for (int r = 1; r < world; r++) {
        OutputStream out = peers[r].getOutputStream();
        out.write(answer);
        out.flush();
      }
      return all;
    } finally {
      for (Socket peer : peers) {
        if (peer != null) {
          peer.close();
        }
      }
    }
  }

  private static String[] send(int rank, int world, InetSocketAddress at, String message)
      throws IOException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(at, 2000);
        socket
            .getOutputStream()
            .write((rank + "\t" + message + "\n").getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String[] all = new String[world];
        for (int r = 0; r < world; r++) {
          all[r] = in.readLine();
        }
        return all;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(200); // rank 0 not listening yet
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", interrupted);
        }
      }
    }
  }
}
