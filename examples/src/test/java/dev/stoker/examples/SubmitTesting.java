package dev.stoker.examples;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the tests that run {@code spark-submit} in a JVM of its own share: Spark's class path
 * without Stoker (so that Stoker comes only from what is submitted), the JVM options Spark needs on
 * Java 17, and a jar of one test application.
 */
public final class SubmitTesting {
  /** Class path entries that are not Spark's: Stoker and what Stoker's jars bring. */
  private static final List<String> NOT_SPARK =
      List.of(
          "dev/stoker",
          "/stoker-",
          "target/classes",
          "target/test-classes",
          "picocli",
          "jfreechart",
          "jcuda",
          "jtokkit",
          "slf4j-simple",
          "org/bytedeco");

  private SubmitTesting() {}

  /** The test class path without Stoker and the jars Stoker's jars bring: Spark's jars. */
  public static String sparkClassPath() {
    String all =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return Arrays.stream(all.split(File.pathSeparator))
        .filter(entry -> NOT_SPARK.stream().noneMatch(entry::contains))
        .collect(Collectors.joining(File.pathSeparator));
  }

  /** The JVM options a Spark driver needs on Java 17, as the build passes them to the tests. */
  public static List<String> jvmOptions() {
    List<String> options =
        new ArrayList<>(
            Arrays.asList(System.getProperty("stoker.test.jvm.options", "").split(" ")));
    options.removeIf(String::isBlank);
    return options;
  }

  /** The Scala binary version this build is for ("2.12" or "2.13"). */
  public static String scalaVersion() {
    return System.getProperty("stoker.test.scala.version", "2.12");
  }

  /**
   * A stand-in {@code SPARK_HOME} in {@code dir} for {@code local-cluster} masters, whose workers
   * look for {@code jars/} and {@code RELEASE} there; the class path comes from the options.
   */
  public static Path sparkHome(Path dir) throws IOException {
    Path home = Files.createDirectories(dir.resolve("spark-home"));
    Files.createDirectories(home.resolve("jars"));
    Files.createFile(home.resolve("RELEASE"));
    return home;
  }

  /**
   * A jar of {@code job}'s classes (the class and its nested and synthetic ones) from the test
   * classes, to submit as an application of its own.
   */
  public static Path jarOf(Class<?> job, Path jarFile) throws Exception {
    Path classes = Path.of(job.getProtectionDomain().getCodeSource().getLocation().toURI());
    String folder = job.getPackageName().replace('.', '/');
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jarFile));
        Stream<Path> files = Files.list(classes.resolve(folder))) {
      for (Path file : files.sorted().toList()) {
        String name = file.getFileName().toString();
        if (name.equals(job.getSimpleName() + ".class")
            || name.startsWith(job.getSimpleName() + "$")) {
          out.putNextEntry(new JarEntry(folder + "/" + name));
          out.write(Files.readAllBytes(file));
          out.closeEntry();
        }
      }
    }
    return jarFile;
  }

  /**
   * Runs {@code SparkSubmit} in a JVM of its own on {@code local-cluster[2,1,1024]}: two executor
   * JVMs that know only Spark's jars, a stand-in {@code SPARK_HOME} in {@code dir}, the driver on
   * the loopback, no UI. {@code jvmOptions} go to the submitting JVM; {@code submitArguments}
   * follow the master and the settings (the class, packages, the application and its arguments).
   * The run's output is in {@code dir/submit.log}; a run past {@code minutes} is killed.
   */
  public static Submitted localCluster(
      Path dir, List<String> jvmOptions, List<String> submitArguments, int minutes)
      throws Exception {
    String sparkJars = sparkClassPath();
    List<String> command =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g"));
    command.addAll(jvmOptions());
    command.addAll(jvmOptions);
    command.addAll(
        List.of(
            "-cp",
            sparkJars,
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "local-cluster[2,1,1024]",
            "--conf",
            "spark.executor.extraClassPath=" + sparkJars,
            "--conf",
            "spark.executorEnv.SPARK_SCALA_VERSION=" + scalaVersion(),
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--conf",
            "spark.ui.enabled=false"));
    command.addAll(submitArguments);
    Path logFile = dir.resolve("submit.log");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile.toFile());
    builder.environment().put("SPARK_HOME", sparkHome(dir).toString());
    builder.environment().put("SPARK_SCALA_VERSION", scalaVersion());
    Process process = builder.start();
    boolean ended = process.waitFor(minutes, TimeUnit.MINUTES);
    if (!ended) {
      process.destroyForcibly().waitFor();
    }
    return new Submitted(
        ended, ended ? process.exitValue() : -1, Files.readString(logFile, StandardCharsets.UTF_8));
  }

  /** How a submitted application ended: in time or not, its exit code, its output. */
  public record Submitted(boolean ended, int exitCode, String log) {}
}
