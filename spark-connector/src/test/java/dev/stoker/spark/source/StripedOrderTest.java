package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.testing.SparkClusters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An input stored sorted by label, read shuffled with a window that holds several blocks: each
 * window deals rows of several row groups (each read once, by a reader kept open between its
 * blocks), every row once over the ranks, and a resume on another number of ranks reads every row
 * not yet read once. 320,000 rows of ten labels in row groups of about 10,000 rows.
 */
class StripedOrderTest {
  private static final int ROWS = 320_000;
  private static final int LABELS = 10;
  private static final int BATCH = 64;

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String sorted;

  @BeforeAll
  static void startSpark() {
    spark = SparkClusters.local(2);
    sorted = dir.resolve("sorted").toString();
    spark
        .range(0, ROWS, 1, 2)
        .selectExpr("id", "cast(id * " + LABELS + " / " + ROWS + " as int) as label")
        .write()
        .option("parquet.block.size", 128 * 1024)
        .parquet(sorted);
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @AfterEach
  void leavesNothingOpen() throws InterruptedException {
    SourceLeaks.assertNothingOpen();
  }

  private static DataFrameReader reader(int worldSize) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", BATCH)
        .option("worldSize", worldSize)
        .option("shuffle", true)
        .option("seed", 7)
        .option("dropLast", true);
  }

  /** The label of row {@code id}, as written. */
  private static long label(long id) {
    return id * LABELS / ROWS;
  }

  /** The labels among a rank's first {@code rows} rows. */
  private static Set<Long> labelsOfFirst(List<Long> ids, int rows) {
    Set<Long> labels = new HashSet<>();
    for (long id : ids.subList(0, Math.min(rows, ids.size()))) {
      labels.add(label(id));
    }
    return labels;
  }

  private static void assertEachRowOnce(List<List<Long>> ranks, int rowsPerRank) {
    Set<Long> all = new HashSet<>();
    for (List<Long> rank : ranks) {
      assertThat(rank).hasSize(rowsPerRank);
      all.addAll(rank);
    }
    assertThat(all).as("no row twice").hasSize(rowsPerRank * ranks.size());
  }

  @Test
  void shouldDealRowsOfSeveralRowGroupsIntoEachWindow() {
    Dataset<Row> striped = reader(2).load(sorted).select("id");
    StokerScan scan = Tables.scan(striped);
    assertThat(scan.plan().rowGroups()).as("row groups to deal").isGreaterThanOrEqualTo(24);
    List<List<Long>> ranks = Tables.idsByRank(striped, "id");
    int perRank = ROWS / (2 * BATCH) * BATCH;
    assertEachRowOnce(ranks, perRank);
    for (List<Long> rank : ranks) {
      // the default window holds 8,192 rows: blocks of 512 rows of 8 row groups at 2 depths
      assertThat(labelsOfFirst(rank, 8192)).hasSizeGreaterThanOrEqualTo(4);
    }

    // a window too small for two blocks reads one row group after another, as stored
    Dataset<Row> plain = reader(2).option("shuffleBuffer", 1000).load(sorted).select("id");
    List<List<Long>> small = Tables.idsByRank(plain, "id");
    assertEachRowOnce(small, perRank);
    for (List<Long> rank : small) {
      assertThat(labelsOfFirst(rank, 1000)).hasSizeLessThanOrEqualTo(2);
    }

    // each row group read once either way (a reader kept open reads on between its blocks), but
    // those of the stripe two ranks share, read by both
    striped.collectAsList();
    plain.collectAsList();
    long dealtBytes = Tables.scanNode(striped).metrics().apply(SourceMetrics.BYTES_READ).value();
    long plainBytes = Tables.scanNode(plain).metrics().apply(SourceMetrics.BYTES_READ).value();
    assertThat(dealtBytes)
        .as("bytes read dealt, against %d as stored", plainBytes)
        .isPositive()
        .isLessThan(plainBytes * 3 / 2);
  }

  /**
   * One row group alone is read at sixteen depths: the first window of a rank holds rows of every
   * label of an input sorted by label, where read front to back it would hold one.
   */
  @Test
  void shouldReadARowGroupAtSeveralDepthsAtOnce() throws IOException {
    String one = dir.resolve("one-group").toString();
    spark
        .range(0, 40_000, 1, 1)
        .selectExpr("id", "cast(id * " + LABELS + " / 40000 as int) as label")
        .write()
        .parquet(one);
    Dataset<Row> read = reader(1).load(one).select("id", "label");
    assertThat(Tables.scan(read).plan().rowGroups()).isEqualTo(1);
    List<Row> rows = read.collectAsList();
    assertThat(rows).hasSize(40_000 / BATCH * BATCH);
    assertThat(rows.stream().map(row -> row.getLong(0)).distinct().count())
        .as("no row twice")
        .isEqualTo(rows.size());
    Set<Integer> labels = new HashSet<>();
    for (Row row : rows.subList(0, 8192)) {
      labels.add(row.getInt(1));
    }
    assertThat(labels).as("labels of the first window").hasSize(LABELS);
    long fileBytes;
    try (Stream<Path> files = Files.walk(Path.of(one))) {
      fileBytes =
          files
              .filter(f -> f.toString().endsWith(".parquet"))
              .mapToLong(f -> f.toFile().length())
              .sum();
    }
    assertThat(Tables.scanNode(read).metrics().apply(SourceMetrics.BYTES_READ).value())
        .as("bytes read: the row group once, whatever its depths")
        .isPositive()
        .isLessThanOrEqualTo(fileBytes);
  }

  @Test
  void shouldResumeADealtEpochInOrderOnAsManyRanksAndOnceOnAnother() {
    Dataset<Row> whole = reader(3).option("epoch", 2).load(sorted).select("id");
    List<List<Long>> uninterrupted = Tables.idsByRank(whole, "id");
    LoaderState after = Tables.scan(whole).stateAfter(37);

    List<List<Long>> same =
        Tables.idsByRank(
            reader(3).option("resumeFrom", after.toString()).load(sorted).select("id"), "id");
    for (int rank = 0; rank < 3; rank++) {
      List<Long> all = uninterrupted.get(rank);
      assertThat(same.get(rank))
          .as("rank %d", rank)
          .containsExactlyElementsOf(all.subList(37 * BATCH, all.size()));
    }

    List<List<Long>> two =
        Tables.idsByRank(
            reader(2).option("resumeFrom", after.toString()).load(sorted).select("id"), "id");
    List<Long> read = new ArrayList<>();
    uninterrupted.forEach(rank -> read.addAll(rank.subList(0, 37 * BATCH)));
    two.forEach(read::addAll);
    assertThat(new HashSet<>(read)).as("no row twice").hasSize(read.size());
    assertThat(ROWS - read.size()).as("dropped").isLessThan(3 * BATCH);
  }
}
