package dev.stoker.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.examples.torch.CnnState;
import dev.stoker.examples.torch.SmallCnn;
import dev.stoker.examples.torch.TorchBatches;
import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.RankContext;
import dev.stoker.spark.RankFunction;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's training on two Spark ranks, briefly: every epoch in one stage over a Parquet table of
 * images whose class is where a bright square sits, read with {@code epochOrder=global}. The loss
 * falls, every rank compares its weights after every step (a difference would fail the stage), the
 * weights go on from epoch to epoch, and the ranks agree on the test accuracy after each.
 */
class DemoTrainingTest {
  private static final int ROWS = 320;
  private static final int EPOCHS = 3;
  private static SparkSession spark;
  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    spark = DemoTesting.localSpark();
    squares().write().parquet(dir.resolve("squares").toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Class c: a 6x6 square of 255 at row 2 + (c / 5) * 12, column 2 + (c % 5) * 5, else 0. */
  private static byte[] square(int label) {
    byte[] pixels = new byte[784];
    int top = 2 + (label / 5) * 12;
    int left = 2 + (label % 5) * 5;
    for (int r = top; r < top + 6; r++) {
      for (int c = left; c < left + 6; c++) {
        pixels[r * 28 + c] = (byte) 255;
      }
    }
    return pixels;
  }

  private static Dataset<Row> squares() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      rows.add(RowFactory.create(square(i % 10), (long) (i % 10)));
    }
    StructType schema =
        new StructType().add("pixels", DataTypes.BinaryType).add("label", DataTypes.LongType);
    return spark.createDataFrame(rows, schema).repartition(4);
  }

  /** 50 squares, five of each class. */
  private static TestSet testSet() {
    int[] labels = new int[50];
    byte[] pixels = new byte[50 * 784];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = i % 10;
      System.arraycopy(square(i % 10), 0, pixels, i * 784, 784);
    }
    return new TestSet(pixels, labels, 0.05, 0.2);
  }

  private static TrainingResult<DemoTraining.Outcome> train(RankNetwork.Factory network) {
    Broadcast<TestSet> test =
        JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(testSet());
    try {
      return StokerSpark.on(
              DemoReads.reader(spark, 16, 2, 7, true)
                  .option("epochOrder", "global")
                  .load(dir.resolve("squares").toString())
                  .select("pixels", "label"))
          .tensor("pixels", DType.UINT8, 1, 28, 28)
          .scalar("label", DType.INT64)
          .normalize("pixels", new double[] {0.05}, new double[] {0.2})
          .options(
              LoaderOptions.builder().batchSize(16).shuffle(true).seed(7).dropLast(true).build())
          .worldSize(2)
          .run(new DemoTraining(network, EPOCHS, test));
    } finally {
      test.destroy();
    }
  }

  private static List<Double> losses(TrainingResult<DemoTraining.Outcome> run) {
    List<Double> losses = new ArrayList<>();
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
      double loss = 0;
      long batches = 0;
      for (DemoTraining.Outcome rank : run.results()) {
        loss += rank.epochs().get(epoch).lossSum();
        batches += rank.epochs().get(epoch).batches();
      }
      losses.add(loss / batches);
    }
    return losses;
  }

  @Test
  void shouldTrainTheCnnEveryEpochInOneStageWithTheSameWeightsOnEveryRankAfterEveryStep() {
    CnnState initial = CnnState.initial(3);
    TrainingResult<DemoTraining.Outcome> run =
        train(new CnnNetwork.Factory(initial, new float[] {0.05f, 0.05f, 0.05f}, 0.9f));

    assertThat(run.report().ranks()).hasSize(2);
    for (DemoTraining.Outcome rank : run.results()) {
      assertThat(rank.threads()).isEqualTo(1); // local[2]: one CPU per task
      assertThat(rank.epochs()).extracting(EpochFigures::epoch).containsExactly(0, 1, 2);
      for (EpochFigures epoch : rank.epochs()) {
        assertThat(epoch.batches()).isEqualTo(ROWS / 2 / 16);
        assertThat(epoch.samples()).isEqualTo(ROWS / 2);
        assertThat(epoch.checks()).isEqualTo(epoch.batches());
        assertThat(epoch.droppedRows()).isZero();
        assertThat(epoch.testRows()).isEqualTo(50);
        assertThat(epoch.verdict()).isNotBlank();
      }
    }
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
      assertThat(run.result(1).epochs().get(epoch).testRight())
          .as("epoch %d: every rank holds the sum of the ranks' right answers", epoch)
          .isEqualTo(run.result(0).epochs().get(epoch).testRight());
    }
    assertThat(run.result(1).weights()).isNull();
    CnnState trained = (CnnState) run.result(0).weights();
    assertThat(trained.checksum()).isNotEqualTo(initial.checksum());
    List<Double> losses = losses(run);
    assertThat(losses.get(2)).as("mean loss per epoch: %s", losses).isLessThan(losses.get(0) * 0.5);
    assertThat(run.result(0).epochs().get(2).accuracy()).isGreaterThan(0.9);
  }

  @Test
  void shouldTrainTheMlpToTheSameFiguresAndWeightsOnEveryRun() {
    MlpNetwork.Factory network =
        new MlpNetwork.Factory(new Mlp(784, 16, 10, 5), new float[] {0.05f, 0.03f, 0.01f}, 0.9f);
    TrainingResult<DemoTraining.Outcome> first = train(network);
    TrainingResult<DemoTraining.Outcome> second = train(network);

    assertThat(second.results()).hasSize(2);
    for (int rank = 0; rank < 2; rank++) {
      assertThat(second.result(rank).epochs())
          .usingRecursiveFieldByFieldElementComparatorIgnoringFields(
              "seconds", "stepSeconds", "verdict", "residentBytes")
          .isEqualTo(first.result(rank).epochs());
    }
    Mlp a = (Mlp) first.result(0).weights();
    Mlp b = (Mlp) second.result(0).weights();
    float[] x = testSet().images();
    assertThat(a.predict(x, 50)).isEqualTo(b.predict(x, 50));
    List<Double> losses = losses(first);
    assertThat(losses.get(2)).as("mean loss per epoch: %s", losses).isLessThan(losses.get(0));
  }

  /** Ranks that start from different weights, as a rank that missed an update would be. */
  static final class Diverging implements RankFunction<Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long run(RankContext rank, DataLoader loader) {
      try (SmallCnn model = new SmallCnn(CnnState.initial(rank.rank()), 0.05f, 0.9f)) {
        DataParallelStep step = new DataParallelStep(rank, model, "epoch 0");
        for (Batch batch : loader.epoch(0)) {
          try (PointerScope scope = new PointerScope()) {
            step.run(
                TorchBatches.hostTensor(batch, "pixels"), TorchBatches.hostTensor(batch, "label"));
          }
        }
        return step.steps();
      }
    }
  }

  @Test
  void shouldStopEveryRankWhenTheirWeightsDiffer() {
    assertThatThrownBy(
            () ->
                StokerSpark.on(squares())
                    .tensor("pixels", DType.UINT8, 1, 28, 28)
                    .scalar("label", DType.INT64)
                    .normalize("pixels", new double[] {0.05}, new double[] {0.2})
                    .options(LoaderOptions.builder().batchSize(16).dropLast(true).build())
                    .worldSize(2)
                    .run(new Diverging()))
        .hasStackTraceContaining("epoch 0 step 0: the ranks' weights differ (CRC-32 per rank: [")
        .hasStackTraceContaining("every rank must apply the same averaged gradients");
  }
}
