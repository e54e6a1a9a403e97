package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.examples.SubmitTesting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar for spark-submit, run as spark-submit runs it ({@code SparkSubmit.main}, in a JVM of its
 * own) on {@code local-cluster[2,1,1024]}: two executor JVMs that know only Spark's jars and get
 * Stoker from the submitted jar. Runs after package, when that jar exists.
 */
@Tag("spark-submit")
class SparkSubmitDemoTest {
  @TempDir Path dir;

  @Test
  void shouldTrainOneEpochOnTwoExecutorJvmsFromTheShadedJar() throws Exception {
    assumeTrue(DemoTesting.hasDebianFiles(), DemoTesting.MISSING_DATASET);
    Path jar = Path.of(System.getProperty("stoker.test.spark.jar", "missing"));
    assertThat(jar).as("the shaded jar (mvn package builds it)").isRegularFile();
    String sparkJars = SubmitTesting.sparkClassPath();
    Path home = SubmitTesting.sparkHome(dir);
    String scala = SubmitTesting.scalaVersion();

    List<String> command =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g"));
    command.addAll(SubmitTesting.jvmOptions());
    command.addAll(
        List.of(
            "-cp",
            sparkJars,
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "local-cluster[2,1,1024]",
            "--class",
            "dev.stoker.examples.demo.DemoJob",
            "--conf",
            "spark.executor.extraClassPath=" + sparkJars,
            "--conf",
            "spark.executorEnv.SPARK_SCALA_VERSION=" + scala,
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--conf",
            "spark.ui.enabled=false",
            jar.toString(),
            "--epochs",
            "1",
            "--hidden",
            "32",
            "--train-rows",
            "12000",
            "--no-sweep",
            "--cache",
            dir.resolve("cache").toString(),
            "--out",
            dir.resolve("out").toString()));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("submit.log").toFile());
    builder.environment().put("SPARK_HOME", home.toString());
    builder.environment().put("SPARK_SCALA_VERSION", scala);
    Process process = builder.start();
    boolean ended = process.waitFor(5, TimeUnit.MINUTES);
    if (!ended) {
      process.destroyForcibly().waitFor();
    }
    String log = Files.readString(dir.resolve("submit.log"), StandardCharsets.UTF_8);

    assertThat(ended).as(log).isTrue();
    assertThat(process.exitValue()).as(log).isZero();
    assertThat(log)
        .contains(
            "the CNN needs PyTorch's natives, which cannot be used here",
            "training the MLP instead (--model mlp)",
            "MLP 784-32-10",
            "Spark master local-cluster[2,1,1024]",
            "normalization (Stoker, 2 ranks)",
            "epoch 1/1: loss",
            "done: test accuracy");
    double accuracy =
        Double.parseDouble(log.replaceAll("(?s).*done: test accuracy ([0-9.]+).*", "$1"));
    assertThat(accuracy).as(log).isGreaterThan(0.75);
    assertThat(dir.resolve("out/stoker-demo.png")).isRegularFile();
  }
}
