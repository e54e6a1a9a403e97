package dev.stoker.examples;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
}
