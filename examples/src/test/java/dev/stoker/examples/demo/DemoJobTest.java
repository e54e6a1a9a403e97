package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.RDDInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The main job on the real Fashion-MNIST, shortened: one epoch over part of the training set. */
class DemoJobTest {
  private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G'};
  private static final Pattern EPOCH =
      Pattern.compile(
          "epoch 1/1: loss ([0-9.]+), test accuracy "
              + "([0-9.]+), ([0-9]+) samples/s, verdict ([a-z-]+), rows dropped: ([0-9]+) at the read, "
              + "per rank \\[([0-9]+), ([0-9]+)\\]");

  @TempDir Path dir;

  /** The Debian package's files, which CI installs; without them the demo tests cannot run. */
  @BeforeAll
  static void needsTheDataset() {
    assumeTrue(DemoTesting.hasDebianFiles(), DemoTesting.MISSING_DATASET);
  }

  private String[] args(String... more) {
    String[] base = {
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
      dir.resolve("out").toString()
    };
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @Test
  void shouldTrainPastAFloorPrintEveryFigureAndReuseTheParquetOnTheNextRun() throws Exception {
    DemoOptions options = new DemoOptions();
    new CommandLine(options).parseArgs(args());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    SparkSession spark = DemoTesting.localSpark();
    DemoSummary summary;
    try {
      summary = run(spark, options, out, err);
    } finally {
      spark.stop();
    }
    String text = out.toString(StandardCharsets.UTF_8);

    assertThat(text)
        .contains(
            "Fashion-MNIST, CNN conv3x3x16-pool-conv3x3x32-pool-linear1568x10",
            "rank 0: 1 thread, 93 steps",
            "rank 1: 1 thread, 93 steps",
            "weights equal after every step (93 checks)",
            "samples/s over the ranks in the last epoch",
            "Fashion-MNIST from Debian's dataset-fashion-mnist",
            "wrote 12000 train and 10000 test rows as Parquet",
            "normalization (Stoker, 2 ranks): " + "mean 0.2",
            "plot: ",
            "summary: ",
            "done: test accuracy");
    Matcher epoch = EPOCH.matcher(text);
    assertThat(epoch.find()).as(text).isTrue();
    assertThat(Double.parseDouble(epoch.group(2))).isGreaterThan(0.75);
    assertThat(epoch.group(5)).isEqualTo("96"); // 12000 rows = 2 ranks x 93 batches x 64 + 96
    assertThat(summary.finalAccuracy()).isEqualTo(Double.parseDouble(epoch.group(2)));
    assertThat(summary.mean()[0]).isBetween(0.27, 0.30);
    assertThat(summary.std()[0]).isBetween(0.34, 0.36);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("epoch 1/1 [", "/186 batches");
    Path plot = dir.resolve("out/stoker-demo.png");
    assertThat(Files.readAllBytes(plot)).startsWith(PNG_MAGIC);
    assertThat(Files.readString(dir.resolve("out/stoker-demo.json")))
        .contains(
            "\"finalTestAccuracy\": " + summary.finalAccuracy(),
            "\"droppedRowsPerRank\": [0, 0]",
            "\"model\": \"cnn\"");

    DemoTesting.Run again = DemoTesting.stoker(concat("demo", args()));
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.out())
        .contains(
            "reusing the Parquet tables in " + dir.resolve("cache/fashion-mnist-parquet-12000"),
            "epoch 1/1: loss")
        .doesNotContain("wrote 12000 train");
  }

  /**
   * Two epochs of the PNG table through the transforms: one barrier stage for the statistics and
   * one for every epoch of training, the ranks agreeing on each epoch's figures.
   */
  @Test
  void shouldTrainEveryEpochOfThePngTableInOneStage() throws Exception {
    DemoOptions options = new DemoOptions();
    new CommandLine(options)
        .parseArgs(
            "--images",
            "--model",
            "mlp",
            "--epochs",
            "2",
            "--hidden",
            "32",
            "--train-rows",
            "3000",
            "--no-sweep",
            "--cache",
            dir.resolve("cache").toString(),
            "--out",
            dir.resolve("out").toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SparkSession spark = DemoTesting.localSpark();
    List<Integer> barrierStages = new CopyOnWriteArrayList<>();
    SparkListener listener =
        new SparkListener() {
          @Override
          public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
            StageInfo stage = submitted.stageInfo();
            if (scala.collection.JavaConverters.seqAsJavaList(stage.rddInfos()).stream()
                .anyMatch(RDDInfo::isBarrier)) {
              barrierStages.add(stage.stageId());
            }
          }
        };
    spark.sparkContext().addSparkListener(listener);
    DemoSummary summary;
    try {
      summary = run(spark, options, out, new ByteArrayOutputStream());
    } finally {
      spark.stop(); // delivers every event still queued to the listener before it returns
    }
    String text = out.toString(StandardCharsets.UTF_8);

    assertThat(barrierStages).as("the statistics' stage and the training's").hasSize(2);
    assertThat(text).contains("images: PNG bytes read with transforms=decode(gray)|pad(4)");
    assertThat(summary.epochs()).hasSize(2);
    for (DemoSummary.Epoch epoch : summary.epochs()) {
      // 3000 rows = 2 ranks x 23 batches x 64 + 56 the read leaves out
      assertThat(epoch.droppedAtRead()).as(text).isEqualTo(56);
      assertThat(epoch.droppedRowsPerRank()).containsExactly(0L, 0L);
      assertThat(epoch.loss()).isFinite().isPositive();
    }
    assertThat(summary.epochs().get(1).loss()).isLessThan(summary.epochs().get(0).loss());
    assertThat(summary.finalAccuracy()).as(text).isGreaterThan(0.5);
  }

  @Test
  void shouldRefuseABadOptionNamingItsValue() {
    DemoTesting.Run run = DemoTesting.stoker(concat("demo", args("--ranks", "0")));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--ranks: 0 (expected: > 0)");
  }

  @Test
  void shouldRefuseAnUnknownModel() {
    DemoTesting.Run run = DemoTesting.stoker(concat("demo", args("--model", "resnet")));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--model", "'resnet' (expected: cnn or mlp)");
  }

  /** Runs the job on {@code spark}, its figures into {@code out}, its progress into {@code err}. */
  private static DemoSummary run(
      SparkSession spark, DemoOptions options, ByteArrayOutputStream out, ByteArrayOutputStream err)
      throws Exception {
    return new DemoJob(
            spark,
            options,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))
        .run();
  }

  private static String[] concat(String first, String[] rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }
}
