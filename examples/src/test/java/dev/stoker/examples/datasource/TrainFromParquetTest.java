package dev.stoker.examples.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainFromParquetTest {
  @TempDir Path dir;

  /** Images whose class is a bright 4x28 band at row 2 x class, on noise. */
  private static List<Row> bands(int rows) {
    SplittableRandom random = new SplittableRandom(5);
    List<Row> list = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      int label = i % 10;
      byte[] pixels = new byte[784];
      for (int p = 0; p < 784; p++) {
        int row = p / 28;
        boolean band = row >= 2 * label + 4 && row < 2 * label + 8;
        pixels[p] = (byte) (band ? 150 + random.nextInt(100) : random.nextInt(120));
      }
      list.add(RowFactory.create(pixels, label));
    }
    return list;
  }

  @Test
  void shouldReadParquetAsRankBatchesAndLowerTheLoss() {
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("stoker-test")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    List<Double> losses;
    try {
      StructType schema =
          new StructType()
              .add("pixels", DataTypes.BinaryType, false)
              .add("label", DataTypes.IntegerType, false);
      String path = dir.resolve("train").toString();
      spark.createDataFrame(bands(2560), schema).write().parquet(path);
      losses = TrainFromParquet.train(spark, path, 3);
    } finally {
      spark.stop();
    }

    assertThat(losses).hasSize(3);
    assertThat(losses.get(2)).isLessThan(losses.get(0) / 2);
  }
}
