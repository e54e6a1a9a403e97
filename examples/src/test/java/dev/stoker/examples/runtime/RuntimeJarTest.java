package dev.stoker.examples.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.examples.SubmitTesting;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime jar as a user meets it: one coordinate ({@code
 * dev.stoker:stoker-spark-runtime-3.5_2.12}) that {@code spark-submit --packages} resolves from a
 * repository, with everything Stoker needs beyond Spark inside and nothing of Spark's. Runs after
 * package, when the runtime module's jar and flattened pom exist.
 */
@Tag("spark-submit")
class RuntimeJarTest {
  private static final Path JAR = Path.of(System.getProperty("stoker.test.runtime.jar", "missing"));
  private static final Path POM = Path.of(System.getProperty("stoker.test.runtime.pom", "missing"));
  private static final String COORDINATE =
      System.getProperty("stoker.test.runtime.coordinate", "dev.stoker:missing:0");

  @TempDir Path dir;

  @Test
  void shouldHoldStokerJCudaAndJTokkitAndNoClassThatSparkHas() throws Exception {
    List<String> classes = new ArrayList<>();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (JarEntry entry : jar.stream().toList()) {
        if (entry.getName().endsWith(".class")) {
          classes.add(entry.getName());
        }
      }
      assertThat(classes)
          .contains(
              "dev/stoker/spark/StokerSpark.class",
              "dev/stoker/loader/DataLoader.class",
              "jcuda/driver/JCudaDriver.class",
              "com/knuddels/jtokkit/Encodings.class")
          .allMatch(
              name ->
                  name.startsWith("dev/stoker/")
                      || name.startsWith("jcuda/")
                      || name.startsWith("com/knuddels/jtokkit/"),
              "a class of Stoker, JCuda or JTokkit");
      assertThat(jar.getEntry("lib/libJCudaDriver-12.0.0-linux-x86_64.so")).isNotNull();
      String sources =
          new String(
              jar.getInputStream(
                      jar.getEntry(
                          "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"))
                  .readAllBytes(),
              StandardCharsets.UTF_8);
      assertThat(sources).contains("dev.stoker.spark.source.StokerSource");
    }
    // No class of the jar is also on Spark's own class path: nothing to clash, nothing to relocate.
    URL[] spark =
        Arrays.stream(SubmitTesting.sparkClassPath().split(File.pathSeparator))
            .map(RuntimeJarTest::url)
            .toArray(URL[]::new);
    try (URLClassLoader sparkOnly = new URLClassLoader(spark, null)) {
      assertThat(sparkOnly.getResource("org/apache/spark/SparkContext.class")).isNotNull();
      assertThat(classes).allMatch(name -> sparkOnly.getResource(name) == null, "not in Spark");
    }
    String pom = Files.readString(POM);
    String artifact = COORDINATE.split(":")[1];
    assertThat(pom)
        .contains("<artifactId>" + artifact + "</artifactId>")
        .doesNotContain("<parent>", "<dependencies>", "${");
  }

  @Test
  void shouldTrainOnTwoExecutorsWithStokerFromItsCoordinateOnly() throws Exception {
    String[] parts = COORDINATE.split(":");
    Path versionDir =
        Files.createDirectories(dir.resolve("repo/dev/stoker").resolve(parts[1]).resolve(parts[2]));
    String base = parts[1] + "-" + parts[2];
    Files.copy(JAR, versionDir.resolve(base + ".jar"));
    Files.copy(POM, versionDir.resolve(base + ".pom"));
    Path app = SubmitTesting.jarOf(RuntimeJarJob.class, dir.resolve("app.jar"));
    Path userHome = Files.createDirectories(dir.resolve("user-home"));

    SubmitTesting.Submitted run =
        SubmitTesting.localCluster(
            dir,
            // A home of its own: no Maven or Ivy cache of this machine answers for the repository.
            List.of("-Duser.home=" + userHome),
            List.of(
                "--packages",
                COORDINATE,
                "--conf",
                "spark.jars.repositories=" + dir.resolve("repo").toUri(),
                "--conf",
                "spark.jars.ivy=" + dir.resolve("ivy"),
                "--class",
                RuntimeJarJob.class.getName(),
                app.toString(),
                dir.resolve("table").toString()),
            5);
    String log = run.log();

    assertThat(run.ended()).as(log).isTrue();
    assertThat(run.exitCode()).as(log).isZero();
    assertThat(log).contains("found dev.stoker#" + parts[1] + ";" + parts[2] + " in repo-1");
    Matcher result =
        Pattern.compile(
                RuntimeJarJob.RESULT
                    + "(\\d+) rows read, batches per rank (\\d+) and (\\d+), id sum (\\d+) \\(read:"
                    + " (\\d+)\\)")
            .matcher(log);
    assertThat(result.find()).as(log).isTrue();
    int perRank = RuntimeJarJob.ROWS / 2 / RuntimeJarJob.BATCH;
    assertThat(Long.parseLong(result.group(1))).isEqualTo(2L * perRank * RuntimeJarJob.BATCH);
    assertThat(result.group(2)).isEqualTo(String.valueOf(perRank));
    assertThat(result.group(3)).isEqualTo(String.valueOf(perRank));
    assertThat(result.group(4)).isEqualTo(result.group(5));
  }

  private static URL url(String path) {
    try {
      return Path.of(path).toUri().toURL();
    } catch (java.net.MalformedURLException e) {
      throw new IllegalArgumentException(path, e);
    }
  }
}
