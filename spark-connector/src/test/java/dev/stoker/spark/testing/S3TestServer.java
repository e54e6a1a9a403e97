package dev.stoker.spark.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real S3-compatible server for the tests, one per JVM, shared by every test class: gofakes3 (an
 * S3 server in Go under the MIT license, built by {@code go install
 * github.com/johannesboyne/gofakes3/cmd/gofakes3@v1.2.0}), found at {@code $STOKER_S3_SERVER}, on
 * the {@code PATH} or in {@code ~/go/bin}, listening on the loopback, its objects in memory. It
 * logs each request it serves, which the tests count. Where it cannot be found the tests that need
 * it are skipped, but in CI ({@code CI} set), where they fail.
 */
public final class S3TestServer {
  /** The bucket the tests write to, made on first use. */
  public static final String BUCKET = "stoker";

  private static S3TestServer shared;

  private final Process process;
  private final int port;
  private final Path log;

  private S3TestServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** The server of this JVM, started on first use and stopped when the JVM ends. */
  public static synchronized S3TestServer shared() {
    if (shared == null) {
      shared = start(binary());
      Runtime.getRuntime().addShutdownHook(new Thread(shared.process::destroyForcibly));
    }
    return shared;
  }

  private static Path binary() {
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
    String missing =
        "no S3 test server: install it with `go install "
            + "github.com/johannesboyne/gofakes3/cmd/gofakes3@v1.2.0` (or set STOKER_S3_SERVER)";
    if (System.getenv("CI") != null) {
      throw new IllegalStateException(missing);
    }
    Assumptions.abort(missing);
    return null;
  }

  private static S3TestServer start(Path binary) {
    try {
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      Path log = Files.createTempFile("stoker-s3-", ".log");
      Process process =
          new ProcessBuilder(
                  binary.toString(),
                  "-backend",
                  "memory",
                  "-host",
                  "127.0.0.1:" + port,
                  "-initialbucket",
                  BUCKET)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try (Socket probe = new Socket()) {
          probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
          return new S3TestServer(process, port, log);
        } catch (IOException notYet) {
          if (!process.isAlive() || System.nanoTime() > deadline) {
            process.destroyForcibly();
            throw new IllegalStateException(
                "the S3 test server " + binary + " did not start: " + Files.readString(log));
          }
          Thread.sleep(50);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The Hadoop settings that reach this server through s3a, without the {@code spark.hadoop.}. */
  public Map<String, String> hadoopConf() {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("fs.s3a.endpoint", "http://127.0.0.1:" + port);
    conf.put("fs.s3a.endpoint.region", "us-east-1");
    conf.put("fs.s3a.path.style.access", "true");
    conf.put("fs.s3a.connection.ssl.enabled", "false");
    conf.put("fs.s3a.access.key", "stoker-test");
    // objects written in one PUT: the SDK refuses the ETags of this server's multipart parts
    conf.put("fs.s3a.multipart.threshold", "512M");
    conf.put("fs.s3a.multipart.size", "512M");
    conf.put("fs.s3a.secret.key", "stoker-test-secret");
    conf.put("fs.s3a.attempts.maximum", "2");
    conf.put("fs.s3a.retry.limit", "2");
    return conf;
  }

  /** The port the server listens on, on the loopback. */
  public int port() {
    return port;
  }

  /** {@link #hadoopConf()} as Spark settings ({@code spark.hadoop.*}). */
  public Map<String, String> sparkConf() {
    Map<String, String> conf = new LinkedHashMap<>();
    hadoopConf().forEach((key, value) -> conf.put("spark.hadoop." + key, value));
    return conf;
  }

  /** A path in the test bucket. */
  public String path(String key) {
    return "s3a://" + BUCKET + "/" + key;
  }

  /** How many object reads (GET of an object, ranged or not) the server has served. */
  public long objectGets() {
    return count("GET OBJECT");
  }

  /** How many object heads (a status asked for) the server has served. */
  public long objectHeads() {
    return count("HEAD OBJECT");
  }

  private long count(String request) {
    try {
      return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .filter(line -> line.contains(request))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
