package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.metrics.ShuffleQuality;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.PlanQuality;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code globalBatchSize}: the sequence of global batches (each rank's batch {@code b} in rank
 * order) is the same on 1, 2, 3, 4 and 6 ranks, every row at most once, and a resume on another
 * number of ranks goes on with the same global batches. 36-row global batches in the default 24
 * streams, so streams give 1 or 2 rows each; 30,000 rows sorted in row groups of some thousands.
 */
class GlobalBatchTest {
  private static final int ROWS = 30_000;
  private static final int GLOBAL = 36;

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String input;

  @BeforeAll
  static void startSpark() {
    spark = SparkClusters.local(2);
    input = dir.resolve("sorted").toString();
    spark
        .range(0, ROWS, 1, 3)
        .selectExpr("id", "cast(id * 10 / " + ROWS + " as int) as label")
        .write()
        .option("parquet.block.size", 32 * 1024)
        .parquet(input);
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
        .option("globalBatchSize", GLOBAL)
        .option("worldSize", worldSize)
        .option("shuffle", true)
        .option("seed", 11)
        .option("shuffleBuffer", 4800)
        .option("epoch", 1);
  }

  /** Batch {@code b} of every rank, in rank order, for each {@code b}: the global batches. */
  private static List<List<Long>> globalBatches(List<List<Long>> ranks) {
    int worldSize = ranks.size();
    int perRank = GLOBAL / worldSize;
    int batches = ranks.get(0).size() / perRank;
    List<List<Long>> global = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      List<Long> batch = new ArrayList<>();
      for (List<Long> rank : ranks) {
        assertThat(rank).hasSize(batches * perRank);
        batch.addAll(rank.subList(b * perRank, (b + 1) * perRank));
      }
      global.add(batch);
    }
    return global;
  }

  private static List<List<Long>> read(DataFrameReader reader) {
    return Tables.idsByRank(reader.load(input).select("id"), "id");
  }

  @Test
  void shouldGiveTheSameGlobalBatchesOnOneToSixRanks() {
    List<List<Long>> one = globalBatches(read(reader(1)));
    assertThat(one).hasSize(ROWS / GLOBAL);
    List<Long> all = new ArrayList<>();
    one.forEach(all::addAll);
    assertThat(new HashSet<>(all)).as("no row twice").hasSize(ROWS / GLOBAL * GLOBAL);
    for (int worldSize : new int[] {2, 3, 4, 6}) {
      assertThat(globalBatches(read(reader(worldSize))))
          .as("global batches on %d ranks", worldSize)
          .isEqualTo(one);
    }

    // shuffled: rows of many places of the input in each batch, and another order each epoch
    assertThat(one.get(0).stream().map(id -> id * 10 / ROWS).distinct().count())
        .as("labels in the first batch of an input sorted by label")
        .isGreaterThanOrEqualTo(5);
    assertThat(globalBatches(read(reader(2).option("epoch", 2)))).isNotEqualTo(one);
  }

  @Test
  void shouldGoOnWithTheSameGlobalBatchesAfterAResumeOnAnotherNumberOfRanks() {
    Dataset<Row> four = reader(4).load(input).select("id");
    List<List<Long>> uninterrupted = globalBatches(Tables.idsByRank(four, "id"));
    LoaderState after = Tables.scan(four).stateAfter(13);
    assertThat(after.orderStreams()).isEqualTo(24);
    assertThat(LoaderState.parse(after.toString())).isEqualTo(after);

    List<List<Long>> rest = uninterrupted.subList(13, uninterrupted.size());
    for (int worldSize : new int[] {3, 6}) {
      List<List<Long>> resumed =
          globalBatches(read(reader(worldSize).option("resumeFrom", after.toString())));
      assertThat(resumed).as("resumed on %d ranks", worldSize).isEqualTo(rest);
    }

    // twice: 13 batches on 4 ranks, then 100 on 6, then the rest on 2
    Dataset<Row> six = reader(6).option("resumeFrom", after.toString()).load(input).select("id");
    LoaderState later = Tables.scan(six).stateAfter(100);
    assertThat(globalBatches(read(reader(2).option("resumeFrom", later.toString()))))
        .isEqualTo(uninterrupted.subList(113, uninterrupted.size()));
  }

  /** The plan's measure of its order is that of the rows the ranks deliver. */
  @Test
  void shouldMeasureTheOrderFromThePlanAsTheRanksDeliverIt() {
    for (DataFrameReader reader :
        List.of(
            reader(3),
            reader(2).option("orderStreams", 6),
            spark
                .read()
                .format("stoker")
                .option("batchSize", 50)
                .option("worldSize", 3)
                .option("shuffle", true)
                .option("seed", 5)
                .option("shuffleBuffer", 4096))) {
      Dataset<Row> read = reader.load(input).select("id");
      StokerScan scan = Tables.scan(read);
      PlanQuality.Measure planned =
          PlanQuality.of(
              scan.plan(),
              scan.config().windowRows(),
              true,
              scan.config().loader().options().seed(),
              scan.config().epoch());
      long[][] ranks =
          Tables.idsByRank(read, "id").stream()
              .map(ids -> ids.stream().mapToLong(Long::longValue).toArray())
              .toArray(long[][]::new);
      int[][] labels = new int[ranks.length][];
      for (int r = 0; r < ranks.length; r++) {
        labels[r] = new int[ranks[r].length];
      }
      assertThat(planned.rowsPerRank()).isEqualTo(ranks[0].length);
      assertThat(planned.gapEntropyBits())
          .isEqualTo(ShuffleQuality.of(ranks, labels, 1).gapEntropyBits())
          .isGreaterThan(5)
          .isLessThan(planned.permutationBits());
    }
  }

  /**
   * A file cut short after planning fails the read where a stream first opens it, naming the file,
   * while the rank's other streams hold readers open: all of them are closed (checked after each
   * test), and a read of intact files afterwards gives the same global batches as before.
   */
  @Test
  void shouldCloseEveryStreamWhenOneFailsMidEpoch() throws Exception {
    Path copy = dir.resolve("cut");
    spark
        .read()
        .parquet(input)
        .write()
        .option("parquet.block.size", 32 * 1024)
        .parquet(copy.toString());
    Dataset<Row> cut = reader(2).load(copy.toString()).select("id");
    BatchScanExec scan = Tables.scanNode(cut); // planned while every file is whole
    Path victim;
    try (var files = Files.list(copy)) {
      victim =
          files
              .filter(f -> f.getFileName().toString().endsWith(".parquet"))
              .sorted()
              .toList()
              .get(1);
    }
    byte[] bytes = Files.readAllBytes(victim);
    Files.write(victim, Arrays.copyOf(bytes, bytes.length / 2));

    assertThatThrownBy(
            () ->
                scan.executeColumnar()
                    .toJavaRDD()
                    .mapPartitions(
                        (FlatMapFunction<Iterator<ColumnarBatch>, Integer>)
                            batches -> {
                              int rows = 0;
                              while (batches.hasNext()) {
                                rows += batches.next().numRows();
                              }
                              return List.of(rows).iterator();
                            })
                    .collect())
        .hasStackTraceContaining(victim.getFileName().toString());
    SourceLeaks.assertNothingOpen();
    assertThat(globalBatches(read(reader(2)))).isEqualTo(globalBatches(read(reader(3))));
  }

  @Test
  void shouldRefuseWhatAGlobalOrderCannotBe() {
    assertThatThrownBy(() -> read(reader(5)))
        .hasStackTraceContaining("worldSize: 5 with globalBatchSize=36 and orderStreams=24")
        .hasStackTraceContaining("divides 12");
    assertThatThrownBy(() -> read(reader(2).option("batchSize", 18)))
        .hasStackTraceContaining("batchSize and globalBatchSize both given");
    assertThatThrownBy(() -> read(reader(2).option("dropLast", false)))
        .hasStackTraceContaining("dropLast=false with globalBatchSize");
    assertThatThrownBy(() -> read(reader(2).option("orderStreams", 48)))
        .hasStackTraceContaining("globalBatchSize: 36 with orderStreams=48");
    assertThatThrownBy(
            () -> read(reader(2).option("globalBatchSize", 1 << 20).option("orderStreams", 1024)))
        .hasStackTraceContaining("orderStreams: 1024 (expected: 1 to 256");
    assertThatThrownBy(
            () ->
                read(
                    spark
                        .read()
                        .format("stoker")
                        .option("orderStreams", 12)
                        .option("worldSize", 2)))
        .hasStackTraceContaining("orderStreams: '12' without globalBatchSize");

    Dataset<Row> two = reader(2).load(input).select("id");
    String state = Tables.scan(two).stateAfter(3).toString();
    assertThatThrownBy(
            () ->
                read(
                    spark
                        .read()
                        .format("stoker")
                        .option("batchSize", 18)
                        .option("worldSize", 2)
                        .option("shuffle", true)
                        .option("seed", 11)
                        .option("resumeFrom", state)))
        .hasStackTraceContaining("the state was taken in a global order (globalBatchSize=36");
    assertThatThrownBy(
            () -> read(reader(2).option("globalBatchSize", 72).option("resumeFrom", state)))
        .hasStackTraceContaining("globalBatchSize=36, this read has globalBatchSize=72");
  }
}
