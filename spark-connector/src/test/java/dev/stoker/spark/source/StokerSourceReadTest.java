package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * format("stoker") on local[2]: equal full batches on every rank, exact coverage, order by (seed,
 * epoch), pruning, SQL, string options, metrics. 1000 rows in 3 files of about 9 row groups each.
 */
class StokerSourceReadTest {
  private static final int ROWS = 1000;

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String images;

  @BeforeAll
  static void startSpark() {
    spark = SparkClusters.local(2);
    images = Tables.images(spark, dir.resolve("images"), ROWS, 3).toString();
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @AfterEach
  void leavesNothingOpen() throws InterruptedException {
    SourceLeaks.assertNothingOpen();
  }

  /** 4 ranks of 16-row batches, shuffled with seed 42, epoch {@code epoch}, tail dropped. */
  private static DataFrameReader reader(int epoch) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", 16)
        .option("worldSize", 4)
        .option("shuffle", true)
        .option("seed", 42)
        .option("epoch", epoch)
        .option("dropLast", true);
  }

  private static Dataset<Row> epoch(int epoch) {
    return load(reader(epoch));
  }

  /** The images without their string column, which the source cannot load. */
  private static Dataset<Row> load(DataFrameReader reader) {
    return reader.load(images).drop("name");
  }

  @Test
  void shouldGiveWorldSizePartitionsOfTheSameNumberOfFullBatches() {
    Dataset<Row> df = epoch(3);

    List<List<Integer>> sizes = Tables.batchSizes(df);

    assertThat(df.rdd().getNumPartitions()).isEqualTo(4);
    StokerScan scan = Tables.scan(df);
    assertThat(scan.batchesPerRank()).isEqualTo(ROWS / 64);
    assertThat(sizes)
        .hasSize(4)
        .allSatisfy(rank -> assertThat(rank).hasSize(scan.batchesPerRank()).containsOnly(16));
  }

  @Test
  void shouldReadEveryRowOnceApartFromTheDroppedTail() {
    Dataset<Row> df = epoch(3);

    List<List<Long>> ranks = Tables.idsByRank(df, "id");

    StokerScan scan = Tables.scan(df);
    assertThat(scan.droppedRows()).isEqualTo(ROWS % 64);
    assertThat(scan.paddedRows()).isZero();
    assertThat(ranks).hasSize(4).allSatisfy(rank -> assertThat(rank).hasSize(240));
    Set<Long> all = new HashSet<>();
    ranks.forEach(all::addAll);
    assertThat(all).hasSize(4 * 240).allSatisfy(id -> assertThat(id).isBetween(0L, ROWS - 1L));
  }

  @Test
  void shouldReadTheSameOrderForTheSameSeedAndEpochWhateverTheWorkers() {
    List<List<Long>> first = Tables.idsByRank(epoch(3), "id");
    List<List<Long>> again = Tables.idsByRank(epoch(3), "id");
    List<List<Long>> workers =
        Tables.idsByRank(load(reader(3).option("numWorkers", 2).option("prefetchFactor", 2)), "id");

    assertThat(again).isEqualTo(first);
    assertThat(workers).isEqualTo(first);
  }

  @Test
  void shouldReadAnotherOrderAndAnotherSplitInAnotherEpoch() {
    List<List<Long>> three = Tables.idsByRank(epoch(3), "id");
    List<List<Long>> four = Tables.idsByRank(epoch(4), "id");

    for (int rank = 0; rank < 4; rank++) {
      assertThat(four.get(rank))
          .hasSize(240)
          .isNotEqualTo(three.get(rank))
          .doesNotContainSequence(three.get(rank).subList(0, 4));
    }
    assertThat(new HashSet<>(four.get(0))).isNotEqualTo(new HashSet<>(three.get(0)));
  }

  @Test
  void shouldGiveEachRankAConsecutiveRangeInFileOrderWithoutShuffle() {
    Dataset<Row> df =
        load(
            spark
                .read()
                .format("stoker")
                .option("batchSize", 10)
                .option("worldSize", 4)
                .option("dropLast", true));

    List<List<Long>> ranks = Tables.idsByRank(df, "id");

    for (int rank = 0; rank < 4; rank++) {
      List<Long> expected = new ArrayList<>();
      for (long id = rank * 250L; id < (rank + 1) * 250L; id++) {
        expected.add(id);
      }
      assertThat(ranks.get(rank)).isEqualTo(expected);
    }
  }

  @Test
  void shouldPadTheLastRanksWithTheFirstRowsWithoutDropLast() {
    Dataset<Row> df =
        load(spark.read().format("stoker").option("batchSize", 16).option("worldSize", 3));

    List<List<Long>> ranks = Tables.idsByRank(df, "id");
    List<List<Integer>> sizes = Tables.batchSizes(df);

    StokerScan scan = Tables.scan(df);
    assertThat(scan.rowsPerRank()).isEqualTo(334);
    assertThat(scan.paddedRows()).isEqualTo(2);
    assertThat(scan.droppedRows()).isZero();
    assertThat(sizes)
        .allSatisfy(
            rank -> {
              assertThat(rank).hasSize(21);
              assertThat(rank.subList(0, 20)).containsOnly(16);
              assertThat(rank.get(20)).isEqualTo(334 - 20 * 16);
            });
    assertThat(ranks.get(2).subList(332, 334)).containsExactly(0L, 1L);
    Set<Long> all = new HashSet<>();
    ranks.forEach(all::addAll);
    assertThat(all).hasSize(ROWS);
  }

  @Test
  void shouldReadEveryColumnIntact() {
    Dataset<Row> df = epoch(1);

    assertIntact(
        df.select("id", "label", "image", "pixels", "weight", "levels", "mask").collectAsList(),
        960);
    assertThat(Tables.scan(df).sparkReaderRuns()).isZero();
  }

  @Test
  void shouldReadPagesV2AndHandOtherEncodingsToSparksReader() {
    String v2 = dir.resolve("v2").toString();
    Tables.imageRows(spark, 300, 2)
        .write()
        .option("parquet.writer.version", "v2")
        .option("parquet.block.size", Tables.ROW_GROUP_BYTES)
        .parquet(v2);
    DataFrameReader reader =
        spark
            .read()
            .format("stoker")
            .option("batchSize", 10)
            .option("worldSize", 3)
            .option("shuffle", true);

    Dataset<Row> all = reader.load(v2).drop("name");
    Dataset<Row> tensors = reader.load(v2).select("image", "label", "levels");

    assertIntact(
        all.select("id", "label", "image", "pixels", "weight", "levels", "mask").collectAsList(),
        300);
    assertThat(Tables.scan(all).sparkReaderRuns()).isPositive();
    assertThat(tensors.collectAsList())
        .hasSize(300)
        .allSatisfy(row -> assertThat(row.<Float>getList(0).get(1) % 8).isEqualTo(1f));
    assertThat(Tables.scan(tensors).sparkReaderRuns()).isZero();
  }

  /** Rows of {@link Tables#images} with every column but the name, in that order. */
  private static void assertIntact(List<Row> rows, int count) {
    assertThat(rows)
        .hasSize(count)
        .allSatisfy(
            row -> {
              long id = row.getLong(0);
              assertThat(row.getInt(1)).isEqualTo((int) (id % 10));
              List<Float> image = row.getList(2);
              for (int i = 0; i < 8; i++) {
                assertThat(image.get(i)).isEqualTo((float) (id * 8 + i));
              }
              byte[] pixels = row.getAs(3);
              assertThat(pixels)
                  .containsExactly((byte) id, (byte) (id + 1), (byte) (id + 2), (byte) (id + 3));
              assertThat(row.getDouble(4)).isEqualTo(id / 2.0);
              assertThat(row.<Double>getList(5))
                  .containsExactly(
                      (double) (id % 3), (double) ((id + 1) % 3), (double) ((id + 2) % 3));
              byte[] mask = row.getAs(6);
              assertThat(mask).containsExactly(id % 2 == 0 ? new byte[] {0, 1} : new byte[] {1, 0});
            });
  }

  @Test
  void shouldReadOnlyTheSelectedColumns() {
    Dataset<Row> all = epoch(2).drop("name");
    Dataset<Row> two = epoch(2).select("image", "label");
    all.collectAsList();
    List<Row> rows = two.collectAsList();

    assertThat(Tables.scan(two).readSchema().fieldNames())
        .containsExactlyInAnyOrder("image", "label");
    assertThat(rows).hasSize(960).allSatisfy(row -> assertThat(row.size()).isEqualTo(2));
    long bytesAll = Tables.scanNode(all).metrics().apply(SourceMetrics.BYTES_READ).value();
    long bytesTwo = Tables.scanNode(two).metrics().apply(SourceMetrics.BYTES_READ).value();
    assertThat(bytesTwo).isPositive().isLessThan(bytesAll);
  }

  @Test
  void shouldTakeStringOptionsInAnyCase() {
    Dataset<Row> df =
        load(
            spark
                .read()
                .format("stoker")
                .options(
                    Map.of(
                        "BATCHSIZE",
                        "16",
                        "worldsize",
                        "4",
                        "Shuffle",
                        "TRUE",
                        "SEED",
                        "42",
                        "Epoch",
                        "3",
                        "droplast",
                        "true")));

    assertThat(Tables.idsByRank(df, "id")).isEqualTo(Tables.idsByRank(epoch(3), "id"));
  }

  @Test
  void shouldReadThroughSql() {
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW train USING stoker OPTIONS (path '"
            + images
            + "', batchSize '16', worldSize '4', shuffle 'true', seed '42', epoch '3', "
            + "dropLast 'true')");

    Dataset<Row> df = spark.sql("SELECT id FROM train");

    assertThat(Tables.idsByRank(df, "id")).isEqualTo(Tables.idsByRank(epoch(3), "id"));
    assertThat(spark.sql("SELECT count(*) FROM train").first().getLong(0)).isEqualTo(960);
  }

  @Test
  void shouldReadSeveralPaths() {
    String more = Tables.images(spark, dir.resolve("more"), 200, 1).toString();

    Dataset<Row> df =
        spark
            .read()
            .format("stoker")
            .option("batchSize", 100)
            .option("worldSize", 2)
            .load(images, more)
            .drop("name");

    StokerScan scan = Tables.scan(df);
    assertThat(scan.rows()).isEqualTo(ROWS + 200);
    assertThat(scan.rowsPerRank()).isEqualTo(600);
  }

  @Test
  void shouldReportRowsBatchesBytesTimeAndDroppedRowsAsMetrics() {
    Dataset<Row> df = epoch(5).select("id", "image");
    df.collectAsList();

    BatchScanExec scan = Tables.scanNode(df);
    assertThat(scan.metrics().apply(SourceMetrics.ROWS_READ).value()).isEqualTo(960);
    assertThat(scan.metrics().apply(SourceMetrics.BATCHES).value()).isEqualTo(60);
    assertThat(scan.metrics().apply(SourceMetrics.ROWS_DROPPED).value()).isEqualTo(40);
    assertThat(scan.metrics().apply(SourceMetrics.BYTES_READ).value()).isPositive();
    assertThat(scan.metrics().apply(SourceMetrics.READ_TIME).value()).isNotNegative();
    assertThat(scan.scan().description())
        .contains(
            "1000 rows", "4 rank(s) x 15 batch(es) of 16", "40 rows dropped", "seed 42", "epoch 5");
  }

  @Test
  void shouldCountWithoutReadingAColumn() {
    assertThat(epoch(3).count()).isEqualTo(960);
    assertThat(
            load(spark.read().format("stoker").option("batchSize", 16).option("worldSize", 3))
                .count())
        .isEqualTo(3 * 334);
  }

  @Test
  void shouldShapeTensorsWithShapeOptions() {
    Dataset<Row> df =
        reader(3)
            .option("shape.image", "2,4")
            .option("SHAPE.pixels", "[2, 2]")
            .load(images)
            .select("id", "image", "pixels");

    assertThat(df.collectAsList())
        .hasSize(960)
        .allSatisfy(
            row -> assertThat(row.<Float>getList(1).get(7)).isEqualTo(row.getLong(0) * 8 + 7f));
  }

  @Test
  void shouldMixRowsAcrossTheShuffleBufferOnly() {
    List<List<Long>> groupsOnly =
        Tables.idsByRank(load(reader(3).option("shuffleBuffer", 1)), "id");
    List<List<Long>> buffered = Tables.idsByRank(epoch(3), "id");

    // Without a buffer, a rank reads whole row groups in a shuffled order: runs of ascending ids.
    assertThat(ascendingSteps(groupsOnly.get(0))).isGreaterThan(200);
    assertThat(ascendingSteps(buffered.get(0))).isLessThan(200);
    assertThat(new HashSet<>(groupsOnly.get(0))).isEqualTo(new HashSet<>(buffered.get(0)));
  }

  private static int ascendingSteps(List<Long> ids) {
    int steps = 0;
    for (int i = 1; i < ids.size(); i++) {
      steps += ids.get(i) == ids.get(i - 1) + 1 ? 1 : 0;
    }
    return steps;
  }

  @Test
  void shouldCloseEverythingWhenATaskStopsEarly() {
    assertThat(epoch(3).limit(3).collectAsList()).hasSize(3);
    assertThat(epoch(3).select("image").takeAsList(20)).hasSize(20);
  }
}
