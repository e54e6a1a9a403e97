package dev.stoker.tools.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real S3-compatible server for the object-store benchmark: gofakes3 (MIT; {@code go install
 * github.com/johannesboyne/gofakes3/cmd/gofakes3@v1.2.0}), its objects in memory, behind a link
 * like a cloud region's object store. For a rate, it runs in a network namespace of its own,
 * reached over a veth pair whose two ends carry at most that rate ({@code tc tbf}); that needs
 * root, {@code ip} and {@code tc}, and traffic goes only to that namespace. Else it listens on the
 * loopback. The round trip is a {@link DelayProxy} in front of it (this machine's kernel has no
 * {@code netem}). Both are set by {@link #shape} once the data is written. The server logs each
 * request it serves, which the benchmark counts.
 */
public final class S3Server implements AutoCloseable {
  /** The bucket the benchmark writes to. */
  public static final String BUCKET = "stoker";

  /** The port the server listens on in its namespace. */
  private static final int NAMESPACE_PORT = 9000;

  private final Process process;
  private final String host;
  private final int port;
  private final Path log;
  private final String namespace;
  private final String rootDevice;
  private DelayProxy proxy;

  private S3Server(
      Process process, String host, int port, Path log, String namespace, String rootDevice) {
    this.process = process;
    this.host = host;
    this.port = port;
    this.log = log;
    this.namespace = namespace;
    this.rootDevice = rootDevice;
  }

  /**
   * A server for a link of {@code rttMs} round trip and {@code gbPerSecond} GB/s (0: none), not yet
   * shaped: the data is written at full speed.
   */
  static S3Server start(Path binary, double rttMs, double gbPerSecond) {
    S3Server server = gbPerSecond > 0 ? inNamespace(binary) : onLoopback(binary);
    if (rttMs > 0) {
      try {
        server.proxy = new DelayProxy(new InetSocketAddress(server.host, server.port));
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
    }
    return server;
  }

  /** The gofakes3 binary: {@code $STOKER_S3_SERVER}, on the PATH, or in ~/go/bin; else why not. */
  static Path binary() {
    String named = System.getenv("STOKER_S3_SERVER");
    if (named != null && !named.isBlank()) {
      return Path.of(named);
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "gofakes3");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    Path home = Path.of(System.getProperty("user.home"), "go", "bin", "gofakes3");
    if (Files.isExecutable(home)) {
      return home;
    }
    throw new IllegalStateException(
        "no S3 server to benchmark against (expected: gofakes3, from `go install "
            + "github.com/johannesboyne/gofakes3/cmd/gofakes3@v1.2.0`, on the PATH or in ~/go/bin, "
            + "or its path in STOKER_S3_SERVER)");
  }

  /**
   * Why a link cannot be shaped on this machine, or null when it can: root, {@code ip} and {@code
   * tc} are needed.
   */
  static String cannotShape() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "a link of a set rate needs root (a network namespace and tc); run as root, or give "
          + "--link-gb-s 0 for the server on the loopback (with --rtt-ms for its round trip)";
    }
    for (String tool : List.of("ip", "tc")) {
      if (!onPath(tool)) {
        return "shaping the link needs '" + tool + "' (apt-get install iproute2)";
      }
    }
    return null;
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir.isEmpty() ? "." : dir, tool))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", tool))
        || Files.isExecutable(Path.of("/sbin", tool));
  }

  private static S3Server onLoopback(Path binary) {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return start(binary, List.of(), "127.0.0.1", port, null, null);
  }

  private static S3Server inNamespace(Path binary) {
    String why = cannotShape();
    if (why != null) {
      throw new IllegalStateException(why);
    }
    long pid = ProcessHandle.current().pid();
    String namespace = "stoker-s3-" + pid;
    String rootDevice = "stks3-" + (pid % 100_000);
    int subnet = (int) (pid % 250) + 1;
    String rootAddress = "10.213." + subnet + ".1";
    String serverAddress = "10.213." + subnet + ".2";
    try {
      run("ip", "netns", "add", namespace);
      run(
          "ip",
          "link",
          "add",
          rootDevice,
          "type",
          "veth",
          "peer",
          "name",
          "eth0",
          "netns",
          namespace);
      run("ip", "addr", "add", rootAddress + "/30", "dev", rootDevice);
      run("ip", "link", "set", rootDevice, "up");
      run("ip", "-n", namespace, "addr", "add", serverAddress + "/30", "dev", "eth0");
      run("ip", "-n", namespace, "link", "set", "eth0", "up");
      run("ip", "-n", namespace, "link", "set", "lo", "up");
      return start(
          binary,
          List.of("ip", "netns", "exec", namespace),
          serverAddress,
          NAMESPACE_PORT,
          namespace,
          rootDevice);
    } catch (RuntimeException e) {
      removeNamespace(namespace);
      throw e;
    }
  }

  private static S3Server start(
      Path binary,
      List<String> prefix,
      String host,
      int port,
      String namespace,
      String rootDevice) {
    try {
      Path log = Files.createTempFile("stoker-s3-bench-", ".log");
      List<String> command = new ArrayList<>(prefix);
      command.addAll(
          List.of(
              binary.toString(),
              "-backend",
              "memory",
              "-host",
              host + ":" + port,
              "-initialbucket",
              BUCKET));
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      S3Server server = new S3Server(process, host, port, log, namespace, rootDevice);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try (Socket probe = new Socket()) {
          probe.connect(new InetSocketAddress(host, port), 200);
          return server;
        } catch (IOException notYet) {
          if (!process.isAlive() || System.nanoTime() > deadline) {
            server.close();
            throw new IllegalStateException(
                "the S3 server " + binary + " did not start: " + Files.readString(log));
          }
          Thread.sleep(50);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting the S3 server", e);
    }
  }

  /**
   * Shapes the link: {@code rttMs} of round trip (the proxy delays each way by half), at most
   * {@code gbPerSecond} GB/s both ways on both ends of the veth pair; each only where the server
   * was started for it.
   */
  void shape(double rttMs, double gbPerSecond) {
    if (rttMs > 0) {
      proxy.delay(rttMs / 2);
    }
    if (gbPerSecond > 0) {
      String rate = String.format(Locale.ROOT, "%.0fmbit", gbPerSecond * 8000);
      List<String> tbf = List.of("root", "tbf", "rate", rate, "burst", "1mb", "latency", "100ms");
      List<String> root = new ArrayList<>(List.of("tc", "qdisc", "replace", "dev", rootDevice));
      root.addAll(tbf);
      run(root.toArray(String[]::new));
      List<String> inside =
          new ArrayList<>(
              List.of("ip", "netns", "exec", namespace, "tc", "qdisc", "replace", "dev", "eth0"));
      inside.addAll(tbf);
      run(inside.toArray(String[]::new));
    }
  }

  /** The Hadoop settings that reach this server through s3a, without the {@code spark.hadoop.}. */
  Map<String, String> hadoopConf() {
    Map<String, String> conf = new LinkedHashMap<>();
    InetSocketAddress at = proxy != null ? proxy.address() : new InetSocketAddress(host, port);
    conf.put("fs.s3a.endpoint", "http://" + at.getAddress().getHostAddress() + ":" + at.getPort());
    conf.put("fs.s3a.endpoint.region", "us-east-1");
    conf.put("fs.s3a.path.style.access", "true");
    conf.put("fs.s3a.connection.ssl.enabled", "false");
    conf.put("fs.s3a.access.key", "stoker-bench");
    // objects written in one PUT: the SDK refuses the ETags of this server's multipart parts
    conf.put("fs.s3a.multipart.threshold", "512M");
    conf.put("fs.s3a.multipart.size", "512M");
    conf.put("fs.s3a.secret.key", "stoker-bench-secret");
    conf.put("fs.s3a.connection.maximum", "128");
    return conf;
  }

  /** A path in the bucket. */
  String path(String key) {
    return "s3a://" + BUCKET + "/" + key;
  }

  /** Object reads (GET of an object, ranged or not) served so far. */
  long objectGets() {
    try {
      return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .filter(line -> line.contains("GET OBJECT"))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (proxy != null) {
      proxy.close();
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (namespace != null) {
      removeNamespace(namespace);
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException e) {
      // a temp file
    }
  }

  private static void removeNamespace(String namespace) {
    try {
      run("ip", "netns", "del", namespace); // its end of the veth pair goes, and so the pair
    } catch (RuntimeException e) {
      // already gone
    }
  }

  private static void run(String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(
            "`" + String.join(" ", command) + "` failed: " + output.strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + command[0] + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command[0], e);
    }
  }
}
