package dev.stoker.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.CacheMode;
import dev.stoker.spark.Leaks;
import dev.stoker.spark.RankIds;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.SparkRunOptions;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TestFrames;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.options.SparkOptionTable;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain Parquet scan or a {@code format("stoker")} read reaches the ranks' loaders straight from
 * its files, planned by row group: every row of the epoch exactly once over the ranks, equal
 * batches, the same batches again for the same seed, later epochs from the shard cache (or from the
 * files again with {@code cache=none}), and clear errors for rows that cannot load.
 */
@Timeout(120)
class StreamedRunTest {
  private static final List<Field> FIELDS =
      List.of(Field.of("x", DType.FLOAT32, 3), Field.scalar("id", DType.INT64));
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2);
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

  private static TrainingResult<RankIds> run(Dataset<Row> input, int epochs, CacheMode cache) {
    return run(input, epochs, cache, SparkOptionTable.CACHE_MEMORY_AUTO);
  }

  private static TrainingResult<RankIds> run(
      Dataset<Row> input, int epochs, CacheMode cache, long cacheMemory) {
    return StokerSpark.on(input)
        .tensor("x", DType.FLOAT32, 3)
        .scalar("id", DType.INT64)
        .options(LoaderOptions.builder().batchSize(4).dropLast(true).shuffle(true).seed(11).build())
        .runOptions(SparkRunOptions.builder().cache(cache).cacheMemory(cacheMemory).build())
        .worldSize(2)
        .run(RankIds.reading(epochs));
  }

  /** Every id of every rank's epoch {@code epoch}, each rank's ids as a set. */
  private static List<Set<Long>> idsOf(TrainingResult<RankIds> run, int epoch) {
    List<Set<Long>> ranks = new ArrayList<>();
    for (RankIds rank : run.results()) {
      List<Long> ids = rank.epochs().get(epoch);
      Set<Long> distinct = new HashSet<>(ids);
      assertThat(distinct)
          .as("rank %d, epoch %d: each row once", rank.rank(), epoch)
          .hasSize(ids.size());
      ranks.add(distinct);
    }
    return ranks;
  }

  @Test
  void shouldStreamAPlainScanEveryRowOnceWithEqualBatchesAndTheCacheForLaterEpochs(
      @TempDir Path folder) {
    String parquet = folder.resolve("frame.parquet").toString();
    TestFrames.frame(spark, 3, 14, 14)
        .write()
        .option("parquet.block.size", "1024")
        .parquet(parquet);

    TrainingResult<RankIds> run = run(spark.read().parquet(parquet), 3, CacheMode.DISK);

    assertThat(run.report().streamed()).isTrue();
    assertThat(run.report().rebalanced()).isFalse();
    assertThat(run.report().toString()).contains("streamed to 2 ranks");
    assertThat(run.report().rows()).isEqualTo(28);
    assertThat(run.report().droppedRows()).isEqualTo(28 - 24);
    assertThat(run.results()).allMatch(RankIds::consistent);
    assertThat(run.results())
        .allSatisfy(
            rank ->
                assertThat(rank.batchSizes())
                    .as("rank %d: 3 full batches an epoch", rank.rank())
                    .hasSize(9)
                    .containsOnly(4));
    List<Set<Long>> first = idsOf(run, 0);
    Set<Long> all = new HashSet<>(first.get(0));
    all.addAll(first.get(1));
    assertThat(all).as("no row on two ranks").hasSize(24);
    for (int epoch = 1; epoch < 3; epoch++) {
      assertThat(idsOf(run, epoch))
          .as("epoch %d from the cache: each rank's rows", epoch)
          .isEqualTo(first);
    }
    for (RankIds rank : run.results()) {
      assertThat(rank.epochs().get(1))
          .as("rank %d: epochs 1 and 2 in other orders", rank.rank())
          .isNotEqualTo(rank.epochs().get(2));
    }
    assertThat(run.report().rank(0).shardBytes())
        .as("the cache, 12 rows of 20 bytes")
        .isEqualTo(12 * 20);
  }

  @Test
  void shouldGiveTheSameBatchesForTheSameSeedWhateverTheCache(@TempDir Path folder) {
    String parquet = folder.resolve("same.parquet").toString();
    TestFrames.frame(spark, 3, 20, 20)
        .write()
        .option("parquet.block.size", "1024")
        .parquet(parquet);
    Dataset<Row> scan = spark.read().parquet(parquet);

    TrainingResult<RankIds> disk = run(scan, 1, CacheMode.DISK);
    TrainingResult<RankIds> none = run(scan, 2, CacheMode.NONE);
    TrainingResult<RankIds> auto = run(scan, 2, CacheMode.AUTO, 0); // no memory tier: the disk's

    assertThat(none.results()).allMatch(RankIds::consistent);
    for (int r = 0; r < 2; r++) {
      assertThat(none.result(r).epochs().get(0))
          .as("rank %d, epoch 0", r)
          .isEqualTo(disk.result(r).epochs().get(0))
          .isEqualTo(auto.result(r).epochs().get(0));
      assertThat(none.result(r).epochs().get(1))
          .as("rank %d, epoch 1 from the files", r)
          .isEqualTo(auto.result(r).epochs().get(1))
          .isNotEqualTo(none.result(r).epochs().get(0));
    }
    assertThat(none.report().rank(0).shardBytes()).as("cache=none writes nothing").isZero();
    assertThat(disk.report().rank(0).shardBytes()).isPositive();
    assertThat(auto.report().rank(0).shardBytes())
        .as("auto writes while epoch 1 streams, " + "for epoch 2 on")
        .isPositive();

    // in memory: written while epoch 0 streams, epoch 1 from it, as cache=memory
    assumeTrue(
        MemoryTier.budget(SparkOptionTable.CACHE_MEMORY_AUTO) > 0, "a memory-backed /dev/shm");
    TrainingResult<RankIds> inMemory = run(scan, 2, CacheMode.AUTO);
    TrainingResult<RankIds> memory = run(scan, 2, CacheMode.MEMORY);
    for (int r = 0; r < 2; r++) {
      assertThat(inMemory.result(r).epochs().get(0)).isEqualTo(none.result(r).epochs().get(0));
      assertThat(inMemory.result(r).epochs().get(1))
          .as("rank %d, epoch 1 from the cache in memory", r)
          .isEqualTo(memory.result(r).epochs().get(1))
          .containsExactlyInAnyOrderElementsOf(none.result(r).epochs().get(1));
    }
    assertThat(inMemory.report().rank(0).shardFolder()).startsWith(MemoryTier.root() + "/");
    assertThat(memory.report().rank(1).shardBytes()).as("20 rows of 20 bytes").isEqualTo(20 * 20);
  }

  @Test
  void shouldStreamAStokerReadWithItsOwnOptionsAndRefuseAConflict(@TempDir Path folder) {
    String parquet = folder.resolve("read.parquet").toString();
    TestFrames.frame(spark, 3, 16, 16).write().parquet(parquet);
    Dataset<Row> read =
        spark
            .read()
            .format("stoker")
            .option("batchSize", "8")
            .option("worldSize", "2")
            .option("dropLast", "true")
            .load(parquet);

    TrainingResult<RankIds> run =
        StokerSpark.on(read)
            .tensor("x", DType.FLOAT32, 3)
            .scalar("id", DType.INT64)
            .option("shuffle", "true")
            .run(RankIds.reading(1));

    assertThat(run.report().streamed()).isTrue();
    assertThat(run.report().worldSize()).as("from the read").isEqualTo(2);
    assertThat(run.report().batchSize()).as("from the read").isEqualTo(8);
    assertThat(run.results())
        .allSatisfy(rank -> assertThat(rank.batchSizes()).containsExactly(8, 8));
    assertThatThrownBy(
            () ->
                StokerSpark.on(read)
                    .tensor("x", DType.FLOAT32, 3)
                    .scalar("id", DType.INT64)
                    .option("batchSize", "4")
                    .run(RankIds.reading(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "batchSize: 8 on the format(\"stoker\") read and 4 on StokerSpark "
                + "(expected: one value; give it on one side only, or the same on both)");
    assertThatThrownBy(
            () ->
                StokerSpark.on(read)
                    .tensor("x", DType.FLOAT32, 3)
                    .scalar("id", DType.INT64)
                    .worldSize(1)
                    .run(RankIds.reading(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "worldSize: 2 on the format(\"stoker\") read and 1 on " + "StokerSpark");
  }

  @Test
  void shouldRefuseANullElementNamingTheFileTheColumnAndTheRow(@TempDir Path folder) {
    String parquet = folder.resolve("nulls.parquet").toString();
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("x", DataTypes.createArrayType(DataTypes.FloatType, true), false);
    List<Row> rows = new ArrayList<>();
    for (long i = 0; i < 16; i++) {
      rows.add(RowFactory.create(i, new Float[] {1f, i == 9 ? null : 2f, 3f}));
    }
    spark
        .createDataFrame(rows.subList(0, 8), schema)
        .coalesce(1)
        .union(spark.createDataFrame(rows.subList(8, 16), schema).coalesce(1))
        .write()
        .parquet(parquet);
    Dataset<Row> scan = spark.read().parquet(parquet);

    assertThatThrownBy(() -> run(scan, 1, CacheMode.AUTO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'x'")
        .hasMessageContaining(".parquet");
  }

  @Test
  void shouldWidenInt32ToInt64AndLeaveOtherTypesToTheRowsPath(@TempDir Path folder) {
    String ints = folder.resolve("ints.parquet").toString();
    TestFrames.frame(spark, 3, 10, 10)
        .selectExpr("cast(id as int) as id", "x")
        .write()
        .parquet(ints);
    Dataset<Row> scan = spark.read().parquet(ints);
    assertThat(PlannedInput.of(scan, FIELDS)).as("int32 in the files, int64 declared").isNotNull();
    TrainingResult<RankIds> widened = run(scan, 2, CacheMode.DISK);
    assertThat(widened.report().streamed()).isTrue();
    assertThat(widened.results()).allMatch(RankIds::consistent);
    assertThat(idsOf(widened, 1))
        .as("the cache keeps int32, the batches int64")
        .isEqualTo(idsOf(widened, 0));

    String shorts = folder.resolve("shorts.parquet").toString();
    TestFrames.frame(spark, 3, 10, 10)
        .selectExpr("cast(id as short) as id", "x")
        .write()
        .parquet(shorts);
    Dataset<Row> other = spark.read().parquet(shorts);
    assertThat(PlannedInput.of(other, FIELDS)).as("smallint in the files").isNull();
    TrainingResult<RankIds> rows = run(other, 1, CacheMode.AUTO);
    assertThat(rows.report().streamed()).isFalse();
    assertThat(rows.results()).allMatch(RankIds::consistent);
  }

  @Test
  void shouldNormalizePixelsAsTheyAreCopiedFromTheFilesAndFromTheCache(@TempDir Path folder) {
    String parquet = folder.resolve("pixels.parquet").toString();
    spark
        .range(0, 24, 1, 2)
        .selectExpr(
            "id", "unhex(concat(lpad(hex(id), 2, '0'), lpad(hex(id * 2), 2, '0'))) as pixels")
        .write()
        .option("parquet.block.size", "1024")
        .parquet(parquet);
    double[] mean = {0.25, 0.5};
    double[] std = {0.5, 0.25};

    TrainingResult<List<String>> run =
        StokerSpark.on(spark.read().parquet(parquet))
            .tensor("pixels", DType.UINT8, 2, 1)
            .scalar("id", DType.INT64)
            .normalize("pixels", mean, std)
            .option("batchSize", "4")
            .option("shuffle", "true")
            .option("dropLast", "true")
            .option(SparkOptionNames.CACHE, "disk")
            .worldSize(2)
            .run(
                (rank, loader) -> {
                  List<String> wrong = new ArrayList<>();
                  for (int epoch = 0; epoch < 2; epoch++) {
                    for (Batch batch : loader.epoch(epoch)) {
                      for (int r = 0; r < batch.size(); r++) {
                        long id = batch.getLong(1, r, 0);
                        float c0 = ((float) id / 255f - 0.25f) / 0.5f;
                        float c1 = ((float) (id * 2) / 255f - 0.5f) / 0.25f;
                        if (batch.getFloat(0, r, 0) != c0 || batch.getFloat(0, r, 1) != c1) {
                          wrong.add("epoch " + epoch + " id " + id);
                        }
                      }
                    }
                  }
                  return wrong;
                });

    assertThat(run.report().streamed()).isTrue();
    assertThat(run.report().rank(0).shardBytes())
        .as("the cache holds the raw bytes")
        .isEqualTo(12 * (2 + 8));
    assertThat(run.results()).allSatisfy(wrong -> assertThat(wrong).isEmpty());
  }

  @Test
  void shouldTakeTheSessionsSettingsForOptionsNotGiven(@TempDir Path folder) {
    String parquet = folder.resolve("session.parquet").toString();
    TestFrames.frame(spark, 3, 16, 16).write().parquet(parquet);
    spark.conf().set("spark.stoker.batchSize", "4");
    spark.conf().set("spark.stoker.worldSize", "2");
    spark.conf().set("spark.stoker.dropLast", "true");
    try {
      TrainingResult<RankIds> plain =
          StokerSpark.on(spark.read().parquet(parquet))
              .tensor("x", DType.FLOAT32, 3)
              .scalar("id", DType.INT64)
              .run(RankIds.reading(1));
      assertThat(plain.report().worldSize()).isEqualTo(2);
      assertThat(plain.report().batchSize()).isEqualTo(4);

      Dataset<Row> read = spark.read().format("stoker").option("batchSize", "8").load(parquet);
      TrainingResult<RankIds> stoker =
          StokerSpark.on(read)
              .tensor("x", DType.FLOAT32, 3)
              .scalar("id", DType.INT64)
              .run(RankIds.reading(1));
      assertThat(stoker.report().batchSize()).as("the read's own beats the session's").isEqualTo(8);
      assertThat(stoker.results())
          .allSatisfy(rank -> assertThat(rank.batchSizes()).containsExactly(8, 8));

      spark.conf().set("spark.stoker.numWorker", "2");
      assertThatThrownBy(
              () ->
                  StokerSpark.on(spark.read().parquet(parquet))
                      .tensor("x", DType.FLOAT32, 3)
                      .scalar("id", DType.INT64)
                      .run(RankIds.reading(1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "spark.stoker.numWorker: a session setting that names no option of "
                  + "Stoker's (expected: did you mean 'spark.stoker.numWorkers'?)");
    } finally {
      for (String name : List.of("batchSize", "worldSize", "dropLast", "numWorker")) {
        spark.conf().unset("spark.stoker." + name);
      }
    }
  }

  @Test
  void shouldNotStreamAFilteredScan(@TempDir Path folder) {
    String parquet = folder.resolve("filtered.parquet").toString();
    TestFrames.frame(spark, 3, 10, 10).write().parquet(parquet);
    assertThat(PlannedInput.of(spark.read().parquet(parquet), FIELDS)).isNotNull();
    Dataset<Row> filtered = spark.read().parquet(parquet).where("id % 2 = 0");
    assertThat(PlannedInput.of(filtered, FIELDS)).isNull();
  }
}
