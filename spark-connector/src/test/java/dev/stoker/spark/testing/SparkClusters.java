package dev.stoker.spark.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Embedded Spark for the tests: {@code local[n]} in this JVM, or {@code local-cluster[w,c,m]} with
 * every executor a JVM of its own, started from the jars Maven resolved (a folder with an empty
 * {@code jars/} stands in for SPARK_HOME, and the executors get this JVM's class path). Optionally
 * each worker offers one fake GPU, found by a discovery script.
 */
public final class SparkClusters {
  private SparkClusters() {}

  /** A session on {@code local[threads]}. */
  public static SparkSession local(int threads) {
    return local(threads, Map.of());
  }

  /** A session on {@code local[threads]} with {@code conf} on top of the tests' settings. */
  public static SparkSession local(int threads, Map<String, String> conf) {
    SparkSession.Builder builder = base("local[" + threads + "]");
    conf.forEach(builder::config);
    return builder.getOrCreate();
  }

  /** A session on {@code local-cluster[workers,1,1024]}: one executor JVM per worker. */
  public static SparkSession cluster(int workers, boolean fakeGpus) {
    return cluster(workers, fakeGpus, Map.of());
  }

  /** {@link #cluster(int, boolean)} with {@code conf} on top of the tests' settings. */
  public static SparkSession cluster(int workers, boolean fakeGpus, Map<String, String> conf) {
    sparkHome();
    SparkSession.Builder builder =
        base("local-cluster[" + workers + ",1,1024]")
            .config("spark.executor.extraClassPath", testClassPath())
            .config("spark.executorEnv.SPARK_SCALA_VERSION", scalaVersion())
            .config("spark.executor.extraJavaOptions", "-XX:MaxDirectMemorySize=512m");
    if (fakeGpus) {
      String script = discoveryScript().toString();
      builder
          .config("spark.worker.resource.gpu.amount", "1")
          .config("spark.worker.resource.gpu.discoveryScript", script)
          .config("spark.executor.resource.gpu.amount", "1")
          .config("spark.executor.resource.gpu.discoveryScript", script)
          .config("spark.task.resource.gpu.amount", "1");
    }
    conf.forEach(builder::config);
    return builder.getOrCreate();
  }

  private static SparkSession.Builder base(String master) {
    return SparkSession.builder()
        .master(master)
        .appName("stoker-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1");
  }

  /** The class path of the tests, which executors need to run the connector's code. */
  public static String testClassPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null ? surefire : System.getProperty("java.class.path");
  }

  private static String scalaVersion() {
    return System.getProperty("stoker.test.scala.version", "2.12");
  }

  /**
   * Makes the folder that the build names as SPARK_HOME: workers launch executors from it, with an
   * empty {@code jars/} (the class path comes from {@code spark.executor.extraClassPath}).
   */
  private static Path sparkHome() {
    String home = System.getenv("SPARK_HOME");
    if (home == null) {
      throw new IllegalStateException(
          "SPARK_HOME is not set (expected: the build sets it to a "
              + "folder the tests make, for local-cluster workers)");
    }
    try {
      Path path = Path.of(home);
      Files.createDirectories(path.resolve("jars"));
      if (!Files.exists(path.resolve("RELEASE"))) {
        Files.createFile(path.resolve("RELEASE"));
      }
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path discoveryScript() {
    try {
      Path script =
          Files.createTempFile(
              "stoker-gpu-discovery",
              ".sh",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
      Files.writeString(
          script, "#!/usr/bin/env bash\necho '{\"name\":\"gpu\",\"addresses\":[\"0\"]}'\n");
      script.toFile().deleteOnExit();
      return script;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
