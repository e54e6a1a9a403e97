package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.metrics.ShuffleQuality;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order's label measure ({@code labelColumn}): each epoch's line in a run's report says how far
 * a step's labels are from the input's mix, the figure that the rows the ranks were given make, and
 * a random permutation's beside it; a bad column is refused by name, bad labels leave the measure
 * unmeasured with the reason, never the run failed.
 */
@Timeout(240)
class LabelMixTest {
  private static final int ROWS = 2000;
  private static final int BATCH = 8;
  private static final int CLASSES = 10;

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String sorted;

  @BeforeAll
  static void write() {
    spark = SparkClusters.local(2);
    sorted = dir.resolve("sorted.parquet").toString();
    // sorted by label, as ETL output often is: 200 rows of each class in turn
    spark
        .range(0, ROWS, 1, 4)
        .selectExpr(
            "id",
            "cast(id / " + ROWS / CLASSES + " as int) as label",
            "cast(id as float) as x",
            "cast(id % 3 - 1 as int) as signed")
        .write()
        .option("parquet.block.size", "4096")
        .parquet(sorted);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static DataFrameReader read(boolean shuffle) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", BATCH)
        .option("worldSize", 2)
        .option("shuffle", shuffle)
        .option("seed", 5)
        .option("dropLast", true)
        .option("shuffleBuffer", 64);
  }

  /** Each rank's ids, in the order it was given them, over one epoch. */
  private static TrainingResult<List<Long>> run(DataFrameReader reader) {
    return StokerSpark.on(reader.load(sorted))
        .scalar("id", DType.INT64)
        .scalar("label", DType.INT32)
        .run(
            (rank, loader) -> {
              List<Long> ids = new ArrayList<>();
              for (Batch batch : loader.epoch(0)) {
                ids.addAll(LocalClusterResumeTest.ids(batch, loader));
              }
              return ids;
            });
  }

  /** The measure of what the ranks were given: each step's labels against the input's mix. */
  private static double deliveredTv(List<List<Long>> ranks) {
    int steps = Integer.MAX_VALUE;
    for (List<Long> rank : ranks) {
      steps = Math.min(steps, rank.size() / BATCH);
    }
    int[][] labels = new int[ranks.size()][];
    for (int r = 0; r < labels.length; r++) {
      labels[r] = new int[steps * BATCH];
      for (int i = 0; i < labels[r].length; i++) {
        labels[r][i] = (int) (ranks.get(r).get(i) / (ROWS / CLASSES));
      }
    }
    long[] counts = new long[CLASSES];
    java.util.Arrays.fill(counts, ROWS / CLASSES);
    return ShuffleQuality.labelTv(labels, BATCH, steps, counts);
  }

  @Test
  void shouldReportTheLabelMixTheRanksWereGivenBesideARandomPermutations() {
    TrainingResult<List<Long>> shuffled = run(read(true).option("labelColumn", "label"));
    String line = shuffled.report().epochOrders().get(0);
    double tv = deliveredTv(shuffled.results());
    assertThat(line)
        .startsWith("epoch 0: gap entropy ")
        .contains(
            String.format(
                Locale.ROOT,
                "; a step's labels %.3f from the input's mix (a random permutation: ",
                tv))
        .endsWith(" over " + (ROWS / 2 / BATCH) + " steps");
    double permutation =
        Double.parseDouble(line.replaceAll(".*a random permutation: ([0-9.]+)\\) over.*", "$1"));
    // 16 rows a step from 10 classes: about 0.3 at random; a window of 64 rows of sorted input far
    // more
    assertThat(permutation).isBetween(0.15, 0.45);
    assertThat(tv).isGreaterThan(permutation);

    TrainingResult<List<Long>> inOrder = run(read(false).option("labelColumn", "label"));
    double ordered = deliveredTv(inOrder.results());
    // each step: 8 rows of one class on each rank, 50 % + 50 % against 10 % each: 0.8
    assertThat(ordered).as("storage order of sorted rows").isCloseTo(0.8, within(1e-9));
    assertThat(inOrder.report().epochOrders().get(0))
        .startsWith("epoch 0: storage order: gap entropy ")
        .contains(String.format(Locale.ROOT, "a step's labels %.3f from", ordered));
    assertThat(inOrder.report().toString()).contains("a step's labels ");
  }

  @Test
  void shouldRefuseALabelColumnThatHoldsNoClassIndicesByName() {
    assertThatThrownBy(() -> read(true).option("labelColumn", "klass").load(sorted))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("labelColumn: 'klass' is not a column of the input")
        .hasMessageContaining("id, label, x, signed");
    assertThatThrownBy(() -> read(true).option("labelColumn", "x").load(sorted))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("labelColumn: 'x' is float")
        .hasMessageContaining("an int or bigint column of class indices");

    TrainingResult<List<Long>> negative = run(read(true).option("labelColumn", "signed"));
    assertThat(negative.results()).allSatisfy(rank -> assertThat(rank).hasSize(ROWS / 2));
    assertThat(negative.report().epochOrders().get(0))
        .contains("; labels not measured: column 'signed' holds -1 in row 0 of file '")
        .contains("(expected: class indices 0 to 65535)");
  }
}
