package dev.stoker.examples.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.examples.SubmitTesting;
import dev.stoker.examples.demo.FashionMnist;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo submitted with {@code SparkSubmit} and the jar for spark-submit, as docs/runner.md tells
 * users, to a Spark standalone cluster of separate hosts ({@link NetnsCluster}: a master and two
 * workers of one core each, every one in a network namespace with an address of its own), so that
 * the two ranks run on different hosts and the collective binds, meets and reduces across them. The
 * link-cut case submits a job of its own ({@link LinkCutJob}) the same way. One cluster serves
 * every case. Needs root and iproute2 (skipped, saying so, without them), the Debian Fashion-MNIST
 * files, and the jar: runs after package.
 */
@Tag("spark-submit")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StandaloneClusterTest {
  /** Enough units that the ranks' gradients go around the ring (over 512 KiB at 2 ranks). */
  private static final String HIDDEN = "192";

  private static final String ROWS = "6000";
  private static final Pattern FIGURES =
      Pattern.compile("mean [0-9.]+, std [0-9.]+ over [0-9]+|loss [0-9.]+, test accuracy [0-9.]+");
  private static final Pattern EXACT_FIGURES =
      Pattern.compile(
          "\"(pixelMean|pixelStd|loss|"
              + "testAccuracy|droppedAtRead|droppedRowsPerRank)\": (\\[[0-9, ]*]|[0-9.E-]+)");

  @TempDir static Path dir;
  private NetnsCluster cluster;
  private Path jar;
  private String sparkJars;

  @BeforeAll
  void startCluster() throws Exception {
    String why = NetnsCluster.unavailable();
    assumeTrue(why == null, () -> "no standalone cluster of separate hosts: " + why);
    assumeTrue(
        Files.isRegularFile(FashionMnist.DEBIAN_FOLDER.resolve("train-images-idx3-ubyte.gz")),
        "Fashion-MNIST is not in "
            + FashionMnist.DEBIAN_FOLDER
            + ": the cluster test needs Debian's dataset-fashion-mnist");
    jar = Path.of(System.getProperty("stoker.test.spark.jar", "missing"));
    assertThat(jar).as("the shaded jar (mvn package builds it)").isRegularFile();
    sparkJars = SubmitTesting.sparkClassPath();
    cluster = NetnsCluster.start(dir, sparkJars, SubmitTesting.jvmOptions(), 2);
  }

  @AfterAll
  void stopCluster() throws IOException {
    if (cluster != null) {
      cluster.close();
      assertThat(cluster.leftovers()).as("namespaces and links left").isEmpty();
    }
  }

  @Test
  void shouldTrainWithRanksOnTwoHostsToTheFiguresOfLocal2() throws Exception {
    Path shared = dir.resolve("shared");
    Submitted run = submit("figures", shared, List.of(), "--epochs", "1");
    assertThat(run.await(5)).as(run.log()).isTrue();
    assertThat(run.exitCode()).as(run.log()).isZero();
    assertThat(run.log()).contains("Spark master " + cluster.masterUrl(), "done: test accuracy");
    // one core per worker: the two ranks ran in two executors, one on each host
    assertThat(run.log())
        .containsPattern(
            "ranks: rank 0 on executor (\\d+), device cpu; rank 1 "
                + "on executor (?!\\1)\\d+, device cpu");
    for (int host = 1; host <= 2; host++) {
      assertThat(cluster.executorLogs(host))
          .as("an executor ran on host %d", host)
          .contains("Running task");
    }
    Submitted local = local(shared, "--epochs", "1");
    assertThat(local.await(5)).as(local.log()).isTrue();
    assertThat(local.exitCode()).as(local.log()).isZero();
    assertThat(figures(run.log())).hasSize(2).isEqualTo(figures(local.log()));
    // bitwise: the summaries write each figure as the shortest decimal that reads back the same
    assertThat(exactFigures("figures")).hasSize(6).isEqualTo(exactFigures("local"));
    assertNoShards();
  }

  @Test
  void shouldRetryTheEpochOrNameTheLostRankWhenAnExecutorIsKilledMidEpoch() throws Exception {
    Submitted run =
        submit("killed", dir.resolve("shared"), List.of(), "--epochs", "2", "--batch-size", "16");
    run.awaitBatches("epoch 2/2", 2, 4);
    List<Long> executors = cluster.executors(2);
    assertThat(executors).as("the executor on host 2").hasSize(1);
    NetnsCluster.run("kill", "-9", String.valueOf(executors.get(0)));
    assertThat(run.await(5)).as(run.log()).isTrue();
    if (run.exitCode() == 0) {
      assertThat(run.log()).contains("epoch 2/2: loss", "done: test accuracy");
    } else {
      assertThat(run.log()).containsPattern("rank \\d").contains(cluster.address(2));
    }
    assertNoShards();
  }

  /**
   * The ranks reduce in a loop until their collective fails ({@link LinkCutJob}), and the link goes
   * down only once both said they reduce: the cut always lands inside an all-reduce or between two,
   * never after the last, however fast or loaded the machine.
   */
  @Test
  void shouldFailEveryRankWithinTheTimeoutNamingThePeerWhenAHostsLinkGoesDown() throws Exception {
    Submitted run =
        submitApp(
            "cut",
            List.of(
                "--conf",
                "spark.stoker.collectiveTimeout=5s",
                "--class",
                LinkCutJob.class.getName(),
                "--jars",
                jar.toString(),
                SubmitTesting.jarOf(LinkCutJob.class, dir.resolve("link-cut.jar")).toString()));
    try {
      int[] ranks = {-1, awaitReducing(run, 1), awaitReducing(run, 2)};
      assertThat(ranks[1] + ranks[2]).as("ranks 0 and 1, one on each host").isEqualTo(1);
      Map<Path, Integer> before1 = cluster.executorLogSizes(1);
      Map<Path, Integer> before2 = cluster.executorLogSizes(2);
      cluster.link(2, false);
      long cut = System.nanoTime();
      String[] failures = {null, awaitNew(1, before1, 60), awaitNew(2, before2, 60)};
      for (int host = 1; host <= 2; host++) {
        int peer = ranks[3 - host];
        assertThat(failures[host])
            .as("rank on host %d", host)
            .containsPattern(
                "rank "
                    + ranks[host]
                    + ": allReduceSum\\(float\\[\\]\\) call #\\d+.*(waiting for rank "
                    + peer
                    + "\\): nothing for 5 s|the connection to rank "
                    + peer
                    + " )");
      }
      // Spark alone would notice the lost host only after spark.network.timeout (120 s)
      assertThat((System.nanoTime() - cut) / 1e9)
          .as("seconds from the cut to both failures")
          .isLessThan(60);
    } finally {
      cluster.link(2, true);
      run.kill();
    }
  }

  /** Waits until the rank on {@code host} says it reduces ({@link LinkCutJob}); its rank. */
  private int awaitReducing(Submitted run, int host) throws Exception {
    Pattern reducing = Pattern.compile(Pattern.quote(LinkCutJob.REDUCING) + "(\\d)");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
    while (System.nanoTime() < deadline) {
      Matcher matcher = reducing.matcher(cluster.executorLogs(host));
      if (matcher.find()) {
        return Integer.parseInt(matcher.group(1));
      }
      if (!run.process().isAlive()) {
        throw new AssertionError(
            "the driver ended before the rank on host " + host + " reduced: " + run.log());
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "the rank on host " + host + " did not reduce within 4 min: " + run.log());
  }

  /** The first CollectiveException host {@code host}'s executors logged after {@code before}. */
  private String awaitNew(int host, Map<Path, Integer> before, int seconds) throws Exception {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (System.nanoTime() < deadline) {
      String added = cluster.executorLogsSince(host, before);
      Matcher failure = Pattern.compile("CollectiveException: [^\n]*").matcher(added);
      if (failure.find()) {
        return failure.group();
      }
      Thread.sleep(250);
    }
    String added = cluster.executorLogsSince(host, before);
    return "no CollectiveException on host "
        + host
        + " within "
        + seconds
        + " s; its executors "
        + "logged: "
        + added.substring(Math.max(0, added.length() - 3000));
  }

  /** No shard file of a rank is left on any host. */
  private void assertNoShards() throws IOException {
    for (int host = 1; host <= 2; host++) {
      assertThat(stokerFiles(cluster.localDir(host))).as("shard files on host %d", host).isEmpty();
    }
  }

  /**
   * The regular files under {@code dir} whose path names Stoker. Spark removes its own folders
   * there as executors end, so an entry that vanishes during the walk is passed over.
   */
  private static List<Path> stokerFiles(Path dir) throws IOException {
    List<Path> found = new ArrayList<>();
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
            if (attributes.isRegularFile() && file.toString().contains("stoker")) {
              found.add(file);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path folder, IOException e) throws IOException {
            if (e == null || e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }
        });
    return found;
  }

  /** The figures of a run's JSON summary, each as written: every bit of the double. */
  private static List<String> exactFigures(String name) throws IOException {
    String json = Files.readString(dir.resolve(name + "-out").resolve("stoker-demo.json"));
    List<String> figures = new ArrayList<>();
    Matcher matcher = EXACT_FIGURES.matcher(json);
    while (matcher.find()) {
      figures.add(matcher.group());
    }
    return figures;
  }

  private static List<String> figures(String log) {
    List<String> figures = new ArrayList<>();
    Matcher matcher = FIGURES.matcher(log);
    while (matcher.find()) {
      figures.add(matcher.group());
    }
    return figures;
  }

  /** The demo submitted to the cluster from the master's host, as docs/runner.md shows. */
  private Submitted submit(String name, Path shared, List<String> conf, String... demo)
      throws IOException {
    List<String> app = new ArrayList<>(conf);
    app.addAll(List.of("--class", "dev.stoker.examples.demo.DemoJob", jar.toString()));
    app.addAll(demoArgs(shared, name, demo));
    return submitApp(name, app);
  }

  /**
   * An application submitted to the cluster from the master's host: {@code app} (settings, the
   * class, the jar, its arguments) after the cluster's settings.
   */
  private Submitted submitApp(String name, List<String> app) throws IOException {
    List<String> command = java();
    command.addAll(
        List.of(
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            cluster.masterUrl(),
            "--conf",
            "spark.executor.cores=1",
            "--conf",
            "spark.cores.max=2",
            "--conf",
            "spark.executor.memory=1g",
            "--conf",
            "spark.executor.extraClassPath=" + sparkJars,
            "--conf",
            "spark.driver.host=" + cluster.address(0),
            "--conf",
            "spark.ui.enabled=false"));
    command.addAll(app);
    Path log = dir.resolve(name + ".log");
    Process process =
        cluster.onHost(0, command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new Submitted(process, log);
  }

  /** The same demo on local[2], in this machine's own network. */
  private Submitted local(Path shared, String... demo) throws IOException {
    List<String> command = java();
    command.addAll(
        List.of(
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "local[2]",
            "--class",
            "dev.stoker.examples.demo.DemoJob",
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--conf",
            "spark.ui.enabled=false",
            jar.toString()));
    command.addAll(demoArgs(shared, "local", demo));
    Path log = dir.resolve("local.log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new Submitted(process, log);
  }

  private List<String> demoArgs(Path shared, String name, String... demo) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--ranks",
                "2",
                "--hidden",
                HIDDEN,
                "--train-rows",
                ROWS,
                "--no-sweep",
                "--cache",
                shared.toString(),
                "--out",
                dir.resolve(name + "-out").toString()));
    args.addAll(List.of(demo));
    return args;
  }

  private List<String> java() {
    List<String> command =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g"));
    command.addAll(SubmitTesting.jvmOptions());
    command.addAll(List.of("-cp", sparkJars));
    return command;
  }

  /** A driver process and its log. */
  private record Submitted(Process process, Path logFile) {
    boolean await(int minutes) throws InterruptedException {
      boolean ended = process.waitFor(minutes, TimeUnit.MINUTES);
      if (!ended) {
        kill();
      }
      return ended;
    }

    /** Waits until the progress line of {@code epoch} shows {@code batches} batches. */
    void awaitBatches(String epoch, int batches, int minutes) throws Exception {
      Pattern progress =
          Pattern.compile(Pattern.quote(epoch) + " \\[[#.]*\\] (\\d+)/\\d+ " + "batches");
      long deadline = System.nanoTime() + minutes * 60_000_000_000L;
      while (System.nanoTime() < deadline) {
        Matcher matcher = progress.matcher(log());
        while (matcher.find()) {
          if (Integer.parseInt(matcher.group(1)) >= batches) {
            return;
          }
        }
        if (!process.isAlive()) {
          throw new AssertionError("the driver ended early: " + log());
        }
        Thread.sleep(200);
      }
      kill();
      throw new AssertionError(
          epoch + " did not reach " + batches + " batches within " + minutes + " min: " + log());
    }

    int exitCode() {
      return process.exitValue();
    }

    String log() throws IOException {
      return Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
    }

    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
