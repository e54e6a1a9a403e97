package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** With dropLast every rank yields the same full batches, whatever the input's partitions. */
@Timeout(120)
class EqualBatchesTest {
  /** Rank functions run in this JVM on local[n]: they count their calls here. */
  static final AtomicInteger CALLS = new AtomicInteger();

  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(4);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @AfterEach
  void nothingLeft() throws InterruptedException {
    Leaks.assertNoRankThreads();
    Leaks.assertNoShards();
  }

  private static TrainingResult<RankIds> run(
      Dataset<Row> input, int worldSize, int batchSize, boolean dropLast, int epochs) {
    return StokerSpark.on(input)
        .tensor("x", DType.FLOAT32, 3)
        .scalar("id", DType.INT64)
        .options(
            LoaderOptions.builder()
                .batchSize(batchSize)
                .dropLast(dropLast)
                .shuffle(true)
                .seed(7)
                .build())
        .worldSize(worldSize)
        .run(RankIds.reading(epochs));
  }

  static Stream<Arguments> partitionings() {
    return Stream.of(
        arguments("skewed", new int[] {1, 50, 3}, 2, 4),
        arguments("empty partitions", new int[] {0, 20, 0, 7, 0}, 2, 4),
        arguments("one partition", new int[] {23}, 3, 4),
        arguments("more partitions than rows", new int[] {1, 0, 1, 1, 0, 1, 0, 1, 1, 0}, 2, 2),
        arguments("one partition per rank, unbalanced", new int[] {3, 30}, 2, 4),
        arguments("one partition per rank, one empty", new int[] {0, 12, 9}, 3, 2),
        arguments("exactly worldSize x batchSize rows", new int[] {5, 3}, 2, 4));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("partitionings")
  void shouldYieldEqualFullBatchesOnEveryRankWithDropLast(
      String name, int[] sizes, int worldSize, int batchSize) {
    long total = IntStream.of(sizes).sum();
    TrainingResult<RankIds> run =
        run(TestFrames.frame(spark, 3, sizes), worldSize, batchSize, true, 2);

    int batches = (int) (total / worldSize) / batchSize;
    LoadReport report = run.report();
    assertThat(report.rows()).isEqualTo(total);
    assertThat(report.batchesPerEpoch()).isEqualTo(batches);
    assertThat(report.droppedRows()).isEqualTo(total - (long) worldSize * batches * batchSize);
    assertThat(report.rebalanced()).isTrue();
    Set<Long> delivered = new HashSet<>();
    for (RankIds rank : run.results()) {
      assertThat(rank.batchSizes()).hasSize(2 * batches).containsOnly(batchSize);
      assertThat(rank.consistent()).isTrue();
      RankReport ranked = report.rank(rank.rank());
      assertThat(ranked.droppedRows()).isEqualTo(ranked.rows() - (long) batches * batchSize);
      for (long id : rank.epochs().get(0)) {
        assertThat(delivered.add(id)).as("row %d delivered twice", id).isTrue();
      }
    }
    assertThat(delivered)
        .hasSize((int) (total - report.droppedRows()))
        .allMatch(id -> id >= 0 && id < total);
  }

  @Test
  void shouldPadSmallerRanksWithoutDropLastSoThatEveryRankEndsWithTheSameShortBatch() {
    TrainingResult<RankIds> run = run(TestFrames.frame(spark, 3, 5, 8), 2, 4, false, 1);

    assertThat(run.report().batchesPerEpoch()).isEqualTo(2);
    assertThat(run.report().paddedRows()).isEqualTo(1);
    assertThat(run.report().droppedRows()).isZero();
    Set<Long> all = new HashSet<>();
    for (RankIds rank : run.results()) {
      assertThat(rank.batchSizes()).containsExactly(4, 3);
      all.addAll(rank.epochs().get(0));
    }
    assertThat(all).hasSize(13);
    assertThat(new HashSet<>(run.result(1).epochs().get(0))).hasSize(6);
  }

  static Stream<Arguments> tooFewRows() {
    return Stream.of(
        arguments("read in place", new int[] {4, 3}), arguments("shuffled", new int[] {7}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tooFewRows")
  void shouldRefuseFewerRowsThanWorldSizeTimesBatchSizeBeforeAnyRankRuns(String name, int[] sizes) {
    CALLS.set(0);
    assertThatThrownBy(
            () ->
                StokerSpark.on(TestFrames.frame(spark, 3, sizes))
                    .tensor("x", DType.FLOAT32, 3)
                    .option("batchSize", "4")
                    .option("dropLast", "true")
                    .worldSize(2)
                    .run((rank, loader) -> CALLS.incrementAndGet()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "rows: 7 over worldSize 2 leave rank 1 with 3, fewer than batchSize 4 "
                + "(expected: at least worldSize x batchSize = 8 rows with dropLast, so that every "
                + "rank gets a full batch; lower batchSize or worldSize)");
    assertThat(CALLS).hasValue(0);
  }

  @Test
  void shouldRefuseAnEmptyInputWithoutDropLast() {
    assertThatThrownBy(() -> run(TestFrames.frame(spark, 3, 0, 0, 0), 2, 4, false, 1))
        .hasMessage(
            "rows: 0 over worldSize 2 leave rank 0 with none (expected: at least one "
                + "row on every rank, 2 in all; lower worldSize)");
  }

  @Test
  void shouldReadAnInputWithOnePartitionPerRankAndEqualCountsInPlace() throws Exception {
    Dataset<Row> balanced =
        spark
            .range(0, 14, 1, 2)
            .select(
                functions.col("id"),
                functions
                    .expr("transform(sequence(0, 2), e -> cast(id * 1000 + e as float))")
                    .as("x"));
    assertThat(balanced.queryExecution().executedPlan().toString()).doesNotContain("Exchange");
    StageRecorder stages = new StageRecorder();
    spark.sparkContext().addSparkListener(stages);
    TrainingResult<RankIds> run;
    try {
      run = run(balanced, 2, 3, true, 2);
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      spark.sparkContext().removeSparkListener(stages);
    }

    assertThat(run.report().rebalanced()).isFalse();
    assertThat(run.report().columnar()).isFalse();
    assertThat(run.report().inputPartitions()).isEqualTo(2);
    assertThat(stages.stages())
        .as("the barrier stage and the one collecting its outcomes")
        .hasSize(2);
    assertThat(stages.shuffleRecordsRead()).as("the ranks' outcomes only").isEqualTo(2);
    assertThat(run.report().batchesPerEpoch()).isEqualTo(2);
    assertThat(run.result(0).epochs().get(0)).allMatch(id -> id < 7);
    assertThat(run.result(1).epochs().get(0)).allMatch(id -> id >= 7);
    assertThat(run.results()).allMatch(RankIds::consistent);
    assertThat(run(balanced, 2, 3, true, 2).results())
        .as("the same batches every run")
        .isEqualTo(run.results());
  }

  @Test
  void shouldStreamAParquetScanAndShuffleAFilteredOne(@TempDir Path folder) {
    String parquet = folder.resolve("frame.parquet").toString();
    TestFrames.frame(spark, 3, 10, 10).write().parquet(parquet);
    Dataset<Row> input = spark.read().parquet(parquet);
    assertThat(input.queryExecution().executedPlan().toString()).contains("ColumnarToRow");

    TrainingResult<RankIds> streamed = run(input, 2, 4, true, 1);
    assertThat(streamed.report().streamed()).isTrue();
    assertThat(streamed.report().rebalanced()).isFalse();
    TrainingResult<RankIds> filtered = run(input.where("id >= 0"), 3, 2, true, 1);
    assertThat(filtered.report().streamed()).as("a filter above the scan").isFalse();
    assertThat(filtered.report().rebalanced()).isTrue();
    for (TrainingResult<RankIds> run : List.of(streamed, filtered)) {
      Set<Long> delivered = new HashSet<>();
      for (RankIds rank : run.results()) {
        assertThat(rank.consistent()).isTrue();
        delivered.addAll(rank.epochs().get(0));
      }
      assertThat(delivered)
          .hasSize((int) (20 - run.report().droppedRows()))
          .allMatch(id -> id >= 0 && id < 20);
    }
  }

  @Test
  void shouldShuffleABalancedInputWhenRebalanceIsAlways() {
    TrainingResult<RankIds> run =
        StokerSpark.on(TestFrames.frame(spark, 3, 6, 6))
            .tensor("x", DType.FLOAT32, 3)
            .scalar("id", DType.INT64)
            .option("batchSize", "3")
            .option("dropLast", "true")
            .option("rebalance", "always")
            .worldSize(2)
            .run(RankIds.reading(1));
    assertThat(run.report().rebalanced()).isTrue();
    List<Long> rank0 = new ArrayList<>(run.result(0).epochs().get(0));
    assertThat(rank0).containsExactlyInAnyOrder(0L, 2L, 4L, 6L, 8L, 10L);
  }
}
