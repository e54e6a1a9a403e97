package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.state.InputChangedException;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.ReadRun;
import dev.stoker.spark.testing.SparkClusters;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * format("stoker") resumed mid-epoch with option resumeFrom: on as many ranks the same rows in the
 * same order; on another number of ranks the rows not yet read, each once; skipped row groups never
 * read; changed files refused. 1000 rows in 3 files of small row groups, a shuffle buffer of 50
 * rows.
 */
class StokerSourceResumeTest {
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

  private static DataFrameReader reader(int worldSize, boolean dropLast) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", 16)
        .option("worldSize", worldSize)
        .option("shuffle", true)
        .option("seed", 42)
        .option("dropLast", dropLast)
        .option("shuffleBuffer", 50);
  }

  private static Dataset<Row> load(DataFrameReader reader, String path) {
    return reader.load(path).select("id", "image");
  }

  /** Each of {@code worldSize} ranks' ids, in order (ranks without rows: empty). */
  private static List<List<Long>> ids(Dataset<Row> df, int worldSize) {
    List<List<Long>> ranks = new ArrayList<>(Tables.idsByRank(df, "id"));
    while (ranks.size() < worldSize) {
      ranks.add(List.of());
    }
    return ranks;
  }

  @Test
  void shouldReadTheRestOfTheEpochInTheSameOrderOnAsManyRanks() {
    Dataset<Row> whole = load(reader(4, true).option("epoch", 3), images);
    List<List<Long>> uninterrupted = ids(whole, 4);
    String state = Tables.scan(whole).stateAfter(5).toString();

    Dataset<Row> resumed = load(reader(4, true).option("resumeFrom", state), images);

    StokerScan scan = Tables.scan(resumed);
    assertThat(scan.batchesPerRank()).isEqualTo(Tables.scan(whole).batchesPerRank() - 5);
    assertThat(scan.description()).contains("epoch 3 resumed after 320 rows");
    List<List<Long>> rest = ids(resumed, 4);
    for (int rank = 0; rank < 4; rank++) {
      List<Long> all = uninterrupted.get(rank);
      assertThat(rest.get(rank))
          .as("rank %d", rank)
          .containsExactlyElementsOf(all.subList(5 * 16, all.size()));
    }
  }

  @Test
  void shouldReadEveryRowNotYetReadOnceOnAnotherNumberOfRanks() {
    Dataset<Row> whole = load(reader(4, true).option("epoch", 1), images);
    List<List<Long>> first = ids(whole, 4);
    LoaderState afterFour = Tables.scan(whole).stateAfter(4);

    Dataset<Row> onThree = load(reader(3, true).option("resumeFrom", afterFour.toString()), images);
    List<List<Long>> second = ids(onThree, 3);
    StokerScan three = Tables.scan(onThree);
    LoaderState afterTwoMore = three.stateAfter(2);
    Dataset<Row> onTwo =
        load(reader(2, true).option("resumeFrom", afterTwoMore.toString()), images);
    List<List<Long>> third = ids(onTwo, 2);
    StokerScan two = Tables.scan(onTwo);

    List<Long> read = new ArrayList<>();
    first.forEach(rank -> read.addAll(rank.subList(0, 4 * 16)));
    second.forEach(rank -> read.addAll(rank.subList(0, 2 * 16)));
    third.forEach(read::addAll);
    assertThat(second).allSatisfy(rank -> assertThat(rank).hasSize(three.batchesPerRank() * 16));
    assertThat(third).allSatisfy(rank -> assertThat(rank).hasSize(two.batchesPerRank() * 16));
    assertThat(new HashSet<>(read)).as("no row twice").hasSize(read.size());
    assertThat((long) read.size() + two.droppedRows()).isEqualTo(ROWS);
    assertThat(two.droppedRows()).isLessThan(4 * 16);
    assertThat(afterTwoMore.segments())
        .extracting(s -> s.worldSize() + "x" + s.rows())
        .containsExactly("4x64", "3x32");
  }

  @Test
  void shouldPadWithoutDropLastAndReportIt() {
    Dataset<Row> whole = load(reader(3, false), images);
    LoaderState state = Tables.scan(whole).stateAfter(7);
    List<List<Long>> first = ids(whole, 3);

    Dataset<Row> onFour = load(reader(4, false).option("resumeFrom", state.toString()), images);
    List<List<Long>> rest = ids(onFour, 4);

    StokerScan scan = Tables.scan(onFour);
    Set<Long> seen = new HashSet<>();
    long delivered = 0;
    for (List<Long> rank : first) {
      seen.addAll(rank.subList(0, 7 * 16));
      delivered += 7 * 16;
    }
    for (List<Long> rank : rest) {
      assertThat(rank).hasSize((int) scan.rowsPerRank());
      seen.addAll(rank);
      delivered += rank.size();
    }
    assertThat(seen).hasSize(ROWS);
    assertThat(delivered - ROWS).isEqualTo(scan.paddedRows());
  }

  @Test
  void shouldStartAtTheRowGroupOfTheFirstRowToRead() {
    Dataset<Row> whole = load(reader(2, true).option("epoch", 2), images);
    StokerScan fresh = Tables.scan(whole);
    LoaderState state = fresh.stateAfter(fresh.batchesPerRank() * 9L / 10);

    Dataset<Row> resumed = load(reader(2, true).option("resumeFrom", state.toString()), images);

    long physical = 0;
    StokerScan scan = Tables.scan(resumed);
    for (ReadRun run : scanRuns(resumed)) {
      physical += run.rows();
    }
    // Each rank reads at most the one shuffle window it resumes inside, beyond its own rows.
    assertThat(physical).isLessThanOrEqualTo(2 * (scan.rowsPerRank() + 50)).isLessThan(ROWS / 4);
    assertThat(ids(resumed, 2))
        .allSatisfy(rank -> assertThat(rank).hasSize(scan.batchesPerRank() * 16));
  }

  private static List<ReadRun> scanRuns(Dataset<Row> df) {
    List<ReadRun> runs = new ArrayList<>();
    StokerBatch batch = (StokerBatch) Tables.scan(df).toBatch();
    for (var partition : batch.planInputPartitions()) {
      runs.addAll(((RankPartition) partition).runs().runs());
    }
    return runs;
  }

  @Test
  void shouldRefuseChangedFilesNamingThemUnlessAccepted() throws IOException {
    Path copy = Tables.images(spark, dir.resolve("changing"), 300, 2);
    String path = copy.toString();
    LoaderState state = Tables.scan(load(reader(2, true), path)).stateAfter(1);
    File[] parts = copy.toFile().listFiles((d, name) -> name.endsWith(".parquet"));
    Arrays.sort(parts);
    assertThat(parts[0].setLastModified(parts[0].lastModified() + 60_000)).isTrue();
    Files.copy(parts[1].toPath(), copy.resolve("part-99999.parquet"));

    assertThatThrownBy(
            () -> Tables.scan(load(reader(2, true).option("resumeFrom", state.toString()), path)))
        .isInstanceOf(InputChangedException.class)
        .hasMessageContaining("the input changed since the state was taken: '")
        .hasMessageContaining(parts[0].getName() + "' rewritten (modified ")
        .hasMessageContaining("part-99999.parquet' added")
        .hasMessageContaining("set acceptChangedInput=true)");
    StokerScan accepted =
        Tables.scan(
            load(
                reader(2, true)
                    .option("resumeFrom", state.toString())
                    .option("acceptChangedInput", true),
                path));
    assertThat(accepted.rows()).isGreaterThan(300);
  }

  @Test
  void shouldRefuseABadStateOrAnotherOrder() {
    String state = Tables.scan(load(reader(2, true), images)).stateAfter(1).toString();
    String corrupted =
        state.substring(0, 12) + (state.charAt(12) == 'A' ? 'B' : 'A') + state.substring(13);

    assertThatThrownBy(
            () -> Tables.scan(load(reader(2, true).option("resumeFrom", corrupted), images)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("resumeFrom: state is corrupted: ");
    assertThatThrownBy(
            () ->
                Tables.scan(
                    load(reader(2, true).option("seed", 7).option("resumeFrom", state), images)))
        .hasMessage(
            "resumeFrom: the state was taken with seed=42, this read has seed=7 "
                + "(expected: the same order; set seed=42)");
    assertThatThrownBy(
            () ->
                Tables.scan(
                    load(reader(2, true).option("epoch", 5).option("resumeFrom", state), images)))
        .hasMessage("epoch: '5' (expected: no epoch, or 0, the epoch of resumeFrom)");
  }
}
