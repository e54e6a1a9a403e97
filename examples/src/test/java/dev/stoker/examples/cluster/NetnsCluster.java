package dev.stoker.examples.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster of separate hosts on this machine: a network namespace per host (the
 * master, where the driver runs too, and the workers), each with an address of its own on a private
 * test subnet, joined by veth pairs to one bridge. The bridge has no address: the hosts reach one
 * another and their own loopback, nothing else. Master and workers are started from the
 * Maven-resolved Spark jars with a stand-in SPARK_HOME (an empty {@code jars/}); executors get the
 * jars through {@code spark.executor.extraClassPath}. {@link #close} (also run by a shutdown hook)
 * kills every process in the namespaces and removes every namespace and link.
 */
final class NetnsCluster implements AutoCloseable {
  private static final long START_MILLIS = 90_000;

  private final String id;
  private final String subnet;
  private final Path dir;
  private final String sparkJars;
  private final List<String> jvmOptions;
  private final List<String> hosts = new ArrayList<>();
  private final List<Process> daemons = new ArrayList<>();
  private final Thread hook = new Thread(this::close, "netns-cluster-cleanup");
  private boolean closed;

  private NetnsCluster(Path dir, String sparkJars, List<String> jvmOptions) {
    int n = ThreadLocalRandom.current().nextInt(16, 250);
    this.id = "sk" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
    this.subnet = "10.231." + n + ".";
    this.dir = dir;
    this.sparkJars = sparkJars;
    this.jvmOptions = jvmOptions;
  }

  /**
   * Why namespaces cannot be made here (not root, no {@code ip}, no permission), or null if they
   * can: tried with a namespace made and removed at once.
   */
  static String unavailable() {
    String probe =
        "sk" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff)) + "p";
    try {
      String out = run("ip", "netns", "add", probe);
      if (out != null) {
        return "'ip netns add' failed: "
            + out.trim()
            + " (the standalone cluster test needs root and iproute2)";
      }
      run("ip", "netns", "del", probe);
      return null;
    } catch (IOException e) {
      return "'ip' cannot be run: "
          + e.getMessage()
          + " (the standalone cluster test needs root and iproute2: apt-get install iproute2)";
    }
  }

  /** Starts a master and {@code workers} workers, each on a host of its own. */
  static NetnsCluster start(Path dir, String sparkJars, List<String> jvmOptions, int workers)
      throws IOException, InterruptedException {
    NetnsCluster cluster = new NetnsCluster(dir, sparkJars, jvmOptions);
    Runtime.getRuntime().addShutdownHook(cluster.hook);
    try {
      cluster.network(workers + 1);
      cluster.daemons();
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** The host of the master (index 0) or of worker {@code i} (1 ..): its namespace. */
  String namespace(int host) {
    return hosts.get(host);
  }

  /** The address of host {@code host} on the test subnet. */
  String address(int host) {
    return subnet + (host + 2);
  }

  String masterUrl() {
    return "spark://" + address(0) + ":7077";
  }

  /** The folder where worker {@code host} keeps its executors' folders and logs. */
  Path workDir(int host) {
    return dir.resolve(namespace(host) + "-work");
  }

  /** Spark's local directories of worker {@code host}: where shards go. */
  Path localDir(int host) {
    return dir.resolve(namespace(host) + "-local");
  }

  /** The stand-in SPARK_HOME: RELEASE and an empty jars/. */
  Path sparkHome() {
    return dir.resolve("spark-home");
  }

  private void network(int count) throws IOException {
    check(run("ip", "link", "add", id + "br", "type", "bridge"));
    check(run("ip", "link", "set", id + "br", "up"));
    for (int host = 0; host < count; host++) {
      String ns = id + (host == 0 ? "m" : "w" + host);
      check(run("ip", "netns", "add", ns));
      hosts.add(ns);
      check(
          run(
              "ip",
              "link",
              "add",
              veth(host),
              "type",
              "veth",
              "peer",
              "name",
              "eth0",
              "netns",
              ns));
      check(run("ip", "link", "set", veth(host), "master", id + "br", "up"));
      check(run("ip", "-n", ns, "addr", "add", address(host) + "/24", "dev", "eth0"));
      check(run("ip", "-n", ns, "link", "set", "eth0", "up"));
      check(run("ip", "-n", ns, "link", "set", "lo", "up"));
    }
  }

  /** The root side of host {@code host}'s veth pair: taking it down cuts the host off. */
  String veth(int host) {
    return id + "v" + host;
  }

  /** Takes host {@code host}'s link down (up = false) or up again. */
  void link(int host, boolean up) throws IOException {
    check(run("ip", "link", "set", veth(host), up ? "up" : "down"));
  }

  private void daemons() throws IOException, InterruptedException {
    Files.createDirectories(sparkHome().resolve("jars"));
    Files.writeString(sparkHome().resolve("RELEASE"), "");
    Process master =
        daemon(
            0,
            "master",
            "org.apache.spark.deploy.master.Master",
            "--host",
            address(0),
            "--port",
            "7077",
            "--webui-port",
            "8080");
    awaitLog(0, "master", "I have been elected leader", master);
    for (int host = 1; host < hosts.size(); host++) {
      Files.createDirectories(workDir(host));
      Files.createDirectories(localDir(host));
      Process worker =
          daemon(
              host,
              "worker",
              "org.apache.spark.deploy.worker.Worker",
              "--host",
              address(host),
              "--cores",
              "1",
              "--memory",
              "1g",
              "--webui-port",
              "8081",
              "--work-dir",
              workDir(host).toString(),
              masterUrl());
      awaitLog(host, "worker", "Successfully registered with master", worker);
    }
  }

  private Process daemon(int host, String name, String mainClass, String... args)
      throws IOException {
    List<String> command =
        new ArrayList<>(List.of("ip", "netns", "exec", namespace(host), javaBin(), "-Xmx256m"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", sparkJars, mainClass));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log(host, name).toFile());
    environment(builder, host);
    Process process = builder.start();
    daemons.add(process);
    return process;
  }

  /** The environment of a process on host {@code host}: Spark's home, address and dirs. */
  void environment(ProcessBuilder builder, int host) {
    builder.environment().put("SPARK_HOME", sparkHome().toString());
    builder
        .environment()
        .put("SPARK_SCALA_VERSION", System.getProperty("stoker.test.scala.version", "2.12"));
    builder.environment().put("SPARK_LOCAL_IP", address(host));
    if (host > 0) {
      builder.environment().put("SPARK_LOCAL_DIRS", localDir(host).toString());
    }
  }

  /** A command run on host {@code host} as one of its processes. */
  ProcessBuilder onHost(int host, List<String> command) {
    List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", namespace(host)));
    all.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(all);
    environment(builder, host);
    return builder;
  }

  Path log(int host, String name) {
    return dir.resolve(namespace(host) + "-" + name + ".log");
  }

  private void awaitLog(int host, String name, String line, Process process)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_MILLIS * 1_000_000;
    while (System.nanoTime() < deadline) {
      String log = Files.exists(log(host, name)) ? Files.readString(log(host, name)) : "";
      if (log.contains(line)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the " + name + " on " + namespace(host) + " ended: " + log);
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "the "
            + name
            + " on "
            + namespace(host)
            + " did not say '"
            + line
            + "' within "
            + START_MILLIS / 1000
            + " s: "
            + Files.readString(log(host, name)));
  }

  /** The process ids of host {@code host}'s executors (CoarseGrainedExecutorBackend). */
  List<Long> executors(int host) throws IOException {
    List<Long> pids = new ArrayList<>();
    String out = output("ip", "netns", "pids", namespace(host));
    for (String line : out.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      long pid = Long.parseLong(line.trim());
      Path cmdline = Path.of("/proc", line.trim(), "cmdline");
      try {
        if (new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8)
            .contains("CoarseGrainedExecutorBackend")) {
          pids.add(pid);
        }
      } catch (IOException e) {
        // ended meanwhile
      }
    }
    return pids;
  }

  /** Every executor log (stderr) of worker {@code host}'s executors, joined. */
  String executorLogs(int host) throws IOException {
    return executorLogsSince(host, Map.of());
  }

  /** The size of each executor log of worker {@code host} now. */
  Map<Path, Integer> executorLogSizes(int host) throws IOException {
    Map<Path, Integer> sizes = new HashMap<>();
    for (Path file : executorLogFiles(host)) {
      sizes.put(file, Files.readAllBytes(file).length);
    }
    return sizes;
  }

  /** What worker {@code host}'s executors logged after {@code sizes} (from executorLogSizes). */
  String executorLogsSince(int host, Map<Path, Integer> sizes) throws IOException {
    StringBuilder logs = new StringBuilder();
    for (Path file : executorLogFiles(host)) {
      byte[] bytes = Files.readAllBytes(file);
      int from = Math.min(bytes.length, sizes.getOrDefault(file, 0));
      logs.append(new String(bytes, from, bytes.length - from, StandardCharsets.ISO_8859_1));
    }
    return logs.toString();
  }

  private List<Path> executorLogFiles(int host) throws IOException {
    if (!Files.isDirectory(workDir(host))) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(workDir(host))) {
      return files.filter(f -> f.getFileName().toString().equals("stderr")).sorted().toList();
    }
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Kills every process on the hosts and removes the namespaces, links and bridge. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (String ns : hosts) {
      try {
        for (String pid : output("ip", "netns", "pids", ns).split("\n")) {
          if (!pid.isBlank()) {
            run("kill", "-9", pid.trim());
          }
        }
      } catch (IOException e) {
        // removing the namespace below ends what is left
      }
    }
    for (Process daemon : daemons) {
      daemon.destroyForcibly();
    }
    for (int host = 0; host < hosts.size(); host++) {
      quietly("ip", "link", "del", veth(host));
      quietly("ip", "netns", "del", hosts.get(host));
    }
    quietly("ip", "link", "del", id + "br");
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // running as the hook
    }
  }

  /** The namespaces and links of this cluster still on the machine (none after close). */
  List<String> leftovers() throws IOException {
    List<String> left = new ArrayList<>();
    for (String line :
        (output("ip", "netns", "list") + "\n" + output("ip", "-o", "link")).split("\n")) {
      if (line.contains(id)) {
        left.add(line.trim());
      }
    }
    return left;
  }

  private static void quietly(String... command) {
    try {
      run(command);
    } catch (IOException e) {
      // cleaning up: what is gone is gone
    }
  }

  private static void check(String failure) {
    if (failure != null) {
      throw new IllegalStateException(failure);
    }
  }

  /** Runs {@code command}; null if it succeeded, else its output. */
  static String run(String... command) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return String.join(" ", command) + ": did not end within 30 s";
      }
      return process.exitValue() == 0
          ? null
          : String.join(" ", command) + ": exit " + process.exitValue() + ": " + out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted: " + String.join(" ", command), e);
    }
  }

  static String output(String... command) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return out;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "cluster %s: master %s, %d workers on %s0/24",
        id,
        address(0),
        hosts.size() - 1,
        subnet);
  }
}
