package dev.stoker.spark.ui;

import dev.stoker.spark.testing.SparkClusters;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Spark History Server in a JVM of its own ({@code
 * org.apache.spark.deploy.history.HistoryServer}, as {@code start-history-server.sh} runs it) over
 * an event-log folder, with this JVM's class path, or that class path less some entries.
 */
final class HistoryServerProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NORMAL)
          .build();

  private final Process process;
  private final Path log;
  final String address;

  private HistoryServerProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.address = "http://127.0.0.1:" + port;
  }

  /** Starts one over {@code eventLogs}, without the class path entries {@code leaveOut} matches. */
  static HistoryServerProcess start(Path eventLogs, Path log, Predicate<String> leaveOut)
      throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    List<String> classPath = new ArrayList<>();
    for (String entry : SparkClusters.testClassPath().split(File.pathSeparator)) {
      if (!leaveOut.test(entry)) {
        classPath.add(entry);
      }
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (option.startsWith("--add-opens")
          || option.startsWith("-XX:+IgnoreUnrecognized")
          || option.startsWith("-Djdk.reflect")) {
        command.add(option);
      }
    }
    command.addAll(
        List.of(
            "-cp",
            String.join(File.pathSeparator, classPath),
            "-Dspark.history.fs.logDirectory=" + eventLogs.toUri(),
            "-Dspark.history.ui.port=" + port,
            "-Dspark.history.fs.update.interval=1s",
            "-Dspark.ui.showConsoleProgress=false",
            "org.apache.spark.deploy.history.HistoryServer"));
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new HistoryServerProcess(process, log, port);
  }

  /** Waits until the server lists application {@code appId}. */
  HistoryServerProcess awaitApplication(String appId) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the History Server ended: " + tail());
      }
      HttpResponse<String> listed = getOrNull("/api/v1/applications");
      if (listed != null && listed.statusCode() == 200 && listed.body().contains(appId)) {
        return this;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "the History Server did not list " + appId + " in 90 s: " + tail());
  }

  HttpResponse<String> get(String path) {
    HttpResponse<String> response = getOrNull(path);
    if (response == null) {
      throw new IllegalStateException("GET " + address + path + " failed: " + tail());
    }
    return response;
  }

  private HttpResponse<String> getOrNull(String path) {
    try {
      return HTTP.send(
          HttpRequest.newBuilder(URI.create(address + path))
              .timeout(Duration.ofSeconds(60))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The server's log. */
  String tail() {
    try {
      String text = Files.readString(log);
      return text.substring(Math.max(0, text.length() - 4000));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
