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
import java.util.ArrayList;
import java.util.List;
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

/**
 * The CNN trained data-parallel on two Spark ranks, briefly: a few steps per epoch on images whose
 * class is where a bright square sits. The loss falls, every rank compares its weights after every
 * step (a difference would fail the stage), and the weights go on from epoch to epoch.
 */
class CnnEpochStepTest {
  private static final int ROWS = 320;
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = DemoTesting.localSpark();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Class c: a 6x6 square of 255 at row 2 + (c / 5) * 12, column 2 + (c % 5) * 5, else 0. */
  private static Dataset<Row> squares() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      int label = i % 10;
      byte[] pixels = new byte[784];
      int top = 2 + (label / 5) * 12;
      int left = 2 + (label % 5) * 5;
      for (int r = top; r < top + 6; r++) {
        for (int c = left; c < left + 6; c++) {
          pixels[r * 28 + c] = (byte) 255;
        }
      }
      rows.add(RowFactory.create(pixels, (long) label));
    }
    StructType schema =
        new StructType().add("pixels", DataTypes.BinaryType).add("label", DataTypes.LongType);
    return spark.createDataFrame(rows, schema);
  }

  private static TrainingResult<CnnEpochStep.Outcome> epoch(CnnState state, int epoch) {
    return StokerSpark.on(squares())
        .tensor("pixels", DType.UINT8, 1, 28, 28)
        .scalar("label", DType.INT64)
        .normalize("pixels", new double[] {0.05}, new double[] {0.2})
        .options(LoaderOptions.builder().batchSize(16).shuffle(true).seed(7).dropLast(true).build())
        .worldSize(2)
        .run(new CnnEpochStep(state, epoch, 0.05f, 0.9f));
  }

  @Test
  void shouldLowerTheLossWithTheSameWeightsOnEveryRankAfterEveryStep() {
    CnnState state = CnnState.initial(3);
    List<Double> losses = new ArrayList<>();
    for (int epoch = 0; epoch < 3; epoch++) {
      TrainingResult<CnnEpochStep.Outcome> run = epoch(state, epoch);
      double loss = 0;
      long batches = 0;
      for (CnnEpochStep.Outcome rank : run.results()) {
        assertThat(rank.batches()).isEqualTo(ROWS / 2 / 16);
        assertThat(rank.checks()).isEqualTo(rank.batches());
        assertThat(rank.threads()).isEqualTo(1); // local[2]: one CPU per task
        loss += rank.lossSum();
        batches += rank.batches();
      }
      assertThat(run.result(1).state()).isNull();
      CnnState next = run.result(0).state();
      assertThat(next.checksum()).isNotEqualTo(state.checksum());
      state = next;
      losses.add(loss / batches);
    }

    assertThat(losses.get(2)).as("mean loss per epoch: %s", losses).isLessThan(losses.get(0) * 0.5);
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
