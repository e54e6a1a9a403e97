package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.testing.SparkClusters;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code normalize(...)} on local[2]: a uint8 image column and a float column reach the ranks'
 * loaders as normalized float32 while their shards keep the raw values.
 */
@Timeout(120)
class NormalizeRunTest {
  private static final int ROWS = 20;
  private static final float[] MEAN = {0.5f, 0.25f, 0.125f};
  private static final float[] STD = {0.5f, 0.25f, 2f};
  private static SparkSession spark;
  private static Dataset<Row> input;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2);
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("img", DataTypes.BinaryType, false)
            .add("x", DataTypes.createArrayType(DataTypes.FloatType, false), false);
    List<Row> rows = new ArrayList<>();
    for (int id = 0; id < ROWS; id++) {
      byte[] img = new byte[12];
      float[] x = new float[4];
      for (int e = 0; e < 12; e++) {
        img[e] = (byte) pixel(id, e);
      }
      for (int e = 0; e < 4; e++) {
        x[e] = id * 10 + e;
      }
      rows.add(RowFactory.create((long) id, img, x));
    }
    input = spark.createDataFrame(rows, schema).repartition(2);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static int pixel(long id, int element) {
    return (int) ((id * 53 + element * 29) % 256);
  }

  private static StokerSpark declared() {
    return StokerSpark.on(input)
        .normalize("img", new double[] {0.5, 0.25, 0.125}, new double[] {0.5, 0.25, 2})
        .tensor("img", DType.UINT8, 3, 2, 2)
        .tensor("x", DType.FLOAT32, 2, 2)
        .scalar("id", DType.INT64)
        .normalize("x", new double[] {100}, new double[] {4})
        .options(LoaderOptions.builder().batchSize(5).dropLast(true).numWorkers(2).build())
        .worldSize(2);
  }

  @Test
  void shouldDeliverNormalizedFloat32FromARawShard() {
    TrainingResult<String> run =
        declared()
            .run(
                (rank, loader) -> {
                  int wrong = 0;
                  int values = 0;
                  for (Batch batch : loader.epoch(0)) {
                    for (int r = 0; r < batch.size(); r++) {
                      long id = batch.getLong(2, r, 0);
                      for (int e = 0; e < 12; e++, values++) {
                        float expected = ((float) pixel(id, e) / 255f - MEAN[e / 4]) / STD[e / 4];
                        wrong += batch.getFloat(0, r, e) == expected ? 0 : 1;
                      }
                      for (int e = 0; e < 4; e++, values++) {
                        wrong += batch.getFloat(1, r, e) == (id * 10 + e - 100f) / 4f ? 0 : 1;
                      }
                    }
                    batch.close();
                  }
                  return loader.layout().schema().field(0)
                      + " "
                      + loader.layout().schema().field(1)
                      + " "
                      + values
                      + " values, "
                      + wrong
                      + " wrong";
                });
    assertThat(run.results())
        .containsOnly("img: float32[3,2,2] x: float32[2,2] 160 values, 0 wrong");
    assertThat(run.report().ranks())
        .allSatisfy(
            rank -> assertThat(rank.shardBytes()).isEqualTo(rank.rows() * (12 + 4 * 4 + 8)));
  }

  @Test
  void shouldRefuseANormalizationOfAColumnItCannotApplyToWhenTheRunStarts() {
    RankFunction<Integer> nothing = (rank, loader) -> 0;
    assertThatThrownBy(
            () -> declared().normalize("y", new double[] {0}, new double[] {1}).run(nothing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "normalize 'y': not a declared column (declared: [img, x, id]; expected: a "
                + "column declared with tensor(...))");
    assertThatThrownBy(
            () -> declared().normalize("id", new double[] {0}, new double[] {1}).run(nothing))
        .hasMessage(
            "normalize 'id': a scalar column of int64 (expected: a tensor "
                + "column whose first dimension is its channels)");
    assertThatThrownBy(
            () ->
                StokerSpark.on(input)
                    .tensor("img", DType.UINT8, 3, 4)
                    .normalize("img", new double[] {0.5, 0.5}, new double[] {0.2})
                    .worldSize(2)
                    .run(nothing))
        .hasMessage(
            "normalize 'img': mean of 2 values [0.5, 0.5] for 3 channels "
                + "(shape [3,4]) (expected: 3 values, one per channel of the first dimension, or 1 "
                + "for every channel)");
    assertThatThrownBy(() -> declared().normalize("x", new double[] {0}, new double[] {1}))
        .hasMessage(
            "normalize 'x' mean [0.0] std [1.0]: column 'x' already has normalize 'x' "
                + "mean [100.0] std [4.0] (expected: one normalize(...) per column)");
    assertThatThrownBy(() -> declared().normalize("x", new double[] {0}, new double[] {-1}))
        .hasMessageStartingWith("normalize 'x': std [-1.0] (expected: finite values > 0");
  }
}
