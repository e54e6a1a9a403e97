package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.examples.SubmitTesting;
import java.nio.file.Path;
import java.util.List;
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
    SubmitTesting.Submitted run =
        SubmitTesting.localCluster(
            dir,
            List.of(),
            List.of(
                "--class",
                "dev.stoker.examples.demo.DemoJob",
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
                dir.resolve("out").toString()),
            5);
    String log = run.log();

    assertThat(run.ended()).as(log).isTrue();
    assertThat(run.exitCode()).as(log).isZero();
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
