package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.spark.rows.BadRowException;
import dev.stoker.spark.run.PlannedInput;
import dev.stoker.spark.run.balance.InputChangedException;
import dev.stoker.spark.shard.ShardBudgetException;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF0;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An input that cannot be loaded as declared stops the run with a message naming the column, the
 * row and what was expected, before any rank function runs, and without retries.
 */
@Timeout(120)
class InputErrorsTest {
  static final AtomicInteger CALLS = new AtomicInteger();
  private static final List<Field> FIELDS =
      List.of(Field.of("x", DType.FLOAT32, 4), Field.scalar("id", DType.INT64));
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
    assertThat(CALLS).as("rank functions run").hasValue(0);
    Leaks.assertNoRankThreads();
    Leaks.assertNoShards();
  }

  /** {@link TestFrames#frame} with row {@code bad}'s tensor one value short. */
  private static Dataset<Row> withShortRow(long bad, int... sizes) {
    return TestFrames.frame(spark, 4, sizes)
        .map(
            (MapFunction<Row, Row>) row -> row.getLong(0) == bad ? TestFrames.row(bad, 3) : row,
            Encoders.row(TestFrames.SCHEMA));
  }

  private static StokerSpark declared(Dataset<Row> input) {
    return StokerSpark.on(input)
        .tensor("x", DType.FLOAT32, 4)
        .scalar("id", DType.INT64)
        .option("batchSize", "2")
        .worldSize(2);
  }

  /** A rank function that reads one epoch, as training does; it streams the rank's rows. */
  private static RankFunction<Integer> reading() {
    return (rank, loader) -> {
      int batches = 0;
      for (Batch batch : loader.epoch(0)) {
        batches += batch.size() > 0 ? 1 : 0;
      }
      return batches;
    };
  }

  private static RankFunction<Integer> counted() {
    return (rank, loader) -> CALLS.incrementAndGet();
  }

  @Test
  void shouldNameTheRowOfAWrongLengthReadInPlace() {
    assertThatThrownBy(() -> declared(withShortRow(6, 4, 4)).run(counted()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("column 'x' row 2 of partition 1: 3 values (expected: 4 = [4])");
  }

  @Test
  void shouldNameTheRowOfAWrongLengthMetWhileShuffling() {
    assertThatThrownBy(() -> declared(withShortRow(4, 3, 5, 0)).run(counted()))
        .isInstanceOf(BadRowException.class)
        .hasMessage("column 'x' row 1 of partition 1: 3 values (expected: 4 = [4])");
  }

  @Test
  void shouldNameTheRowOfAWrongLengthInParquetStreamedOrShuffled(@TempDir Path folder) {
    String parquet = folder.resolve("short.parquet").toString();
    withShortRow(6, 4, 4).write().parquet(parquet);
    Dataset<Row> input = spark.read().parquet(parquet);
    int partition =
        input
            .withColumn("p", functions.spark_partition_id())
            .filter(functions.col("id").equalTo(6))
            .first()
            .getInt(2);
    // The footers count one value less than 4 a row: the files cannot be streamed as declared,
    // and the rows path names the row.
    assertThat(PlannedInput.of(input, FIELDS)).isNull();
    assertThatThrownBy(() -> declared(input).run(counted()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "column 'x' row 2 of partition " + partition + ": 3 values (expected: 4 = " + "[4])");
  }

  @Test
  void shouldNameTheRowOfAWrongLengthMetWhileStreamingWithoutRetries(@TempDir Path folder) {
    String parquet = folder.resolve("uneven.parquet").toString();
    // Rows 2 and 3 hold 3 and 5 values: the footers count 4 a row, the pages tell.
    TestFrames.frame(spark, 4, 8)
        .map(
            (MapFunction<Row, Row>)
                row ->
                    row.getLong(0) == 2
                        ? TestFrames.row(2, 3)
                        : row.getLong(0) == 3 ? TestFrames.row(3, 5) : row,
            Encoders.row(TestFrames.SCHEMA))
        .coalesce(1)
        .write()
        .parquet(parquet);
    Dataset<Row> input = spark.read().parquet(parquet);
    assertThat(PlannedInput.of(input, FIELDS)).isNotNull();

    AtomicReference<Throwable> thrown = new AtomicReference<>();
    int retries = retriesOf(() -> thrown.set(catchThrowable(() -> declared(input).run(reading()))));
    assertThat(thrown.get())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("column 'x' has 3 values in row 2 of file '")
        .hasMessageContaining("uneven.parquet/part-")
        .hasMessageContaining("(expected: 4 = [4], as the declared shape says;");
    assertThat(retries).as("stage attempts retried").isZero();
  }

  @Test
  void shouldNameTheRowOfANull() {
    Dataset<Row> input =
        spark
            .createDataFrame(
                List.of(RowFactory.create(0L, null), RowFactory.create(1L, 2.0)),
                new org.apache.spark.sql.types.StructType()
                    .add("id", DataTypes.LongType)
                    .add("w", DataTypes.DoubleType))
            .repartition(1);
    assertThatThrownBy(
            () ->
                StokerSpark.on(input)
                    .scalar("w", DType.FLOAT64)
                    .option("batchSize", "1")
                    .worldSize(2)
                    .run(counted()))
        .hasMessage(
            "column 'w' row 0 of partition 0: null (expected: float64; drop or fill the "
                + "nulls first, e.g. df.na().drop())");
  }

  @Test
  void shouldRefuseAnInputThatChangesBetweenCountingAndReading() {
    Dataset<Row> changing =
        TestFrames.frame(spark, 4, 500, 500, 500)
            .filter(
                functions
                    .udf((UDF0<Boolean>) () -> Math.random() < 0.5, DataTypes.BooleanType)
                    .asNondeterministic()
                    .apply());
    assertThatThrownBy(() -> declared(changing).run(counted()))
        .isInstanceOf(InputChangedException.class)
        .hasMessageStartingWith("input partition ")
        .hasMessageContaining(
            "were counted (expected: the same rows every time the DataFrame is "
                + "computed; cache() or checkpoint() a DataFrame that is not deterministic, e.g. one "
                + "that samples or reads changing files)");
  }

  @Test
  void shouldRefuseAShardOverBudgetOnTheDriverWhenItsSizeIsKnown() {
    assertThatThrownBy(
            () ->
                declared(TestFrames.frame(spark, 4, 10, 6, 0))
                    .option("maxShardBytes", "100")
                    .run(counted()))
        .isInstanceOf(ShardBudgetException.class)
        .hasMessage(
            "shard of rank 0: 8 rows x 24 bytes = 192 bytes (expected: at most "
                + "maxShardBytes = 100 bytes; raise maxShardBytes, use more ranks or fewer columns)");
  }

  @Test
  void shouldRefuseAShardOverBudgetOnTheRanksReadingInPlace() {
    assertThatThrownBy(
            () ->
                declared(TestFrames.frame(spark, 4, 8, 3))
                    .option("maxShardBytes", "100")
                    .run(counted()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "shard of rank 0: 8 rows x 24 bytes = 192 bytes (expected: at most "
                + "maxShardBytes = 100 bytes; raise maxShardBytes, use more ranks or fewer columns)");
  }

  /** Counts the retried attempts of the stages that run while it listens. */
  static final class StageRetries extends SparkListener {
    final AtomicInteger retries = new AtomicInteger();

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
      if (submitted.stageInfo().attemptNumber() > 0) {
        retries.incrementAndGet();
      }
    }
  }

  private static int retriesOf(Runnable run) {
    StageRetries listener = new StageRetries();
    spark.sparkContext().addSparkListener(listener);
    try {
      run.run();
    } finally {
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty();
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException(e);
      }
      spark.sparkContext().removeSparkListener(listener);
    }
    return listener.retries.get();
  }

  @Test
  void shouldRefuseACorruptPageAtOnceWithoutRetries(@TempDir Path folder) throws Exception {
    String parquet = folder.resolve("corrupt.parquet").toString();
    TestFrames.frame(spark, 4, 6, 6).write().parquet(parquet);
    Path file;
    try (var files = Files.list(Path.of(parquet))) {
      file =
          files
              .filter(p -> p.getFileName().toString().endsWith(".parquet"))
              .sorted()
              .findFirst()
              .orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(file);
    java.util.Arrays.fill(bytes, 4, 40, (byte) 0xff); // the first page's header
    Files.write(file, bytes);
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    int retries =
        retriesOf(
            () ->
                thrown.set(
                    catchThrowable(() -> declared(spark.read().parquet(parquet)).run(reading()))));
    assertThat(thrown.get())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("rank ")
        .hasMessageContaining(
            " of 2: its input failed the same way when read again, so a retry " + "cannot help: ")
        .hasMessageContaining(file.getFileName().toString())
        .hasMessageEndingWith(
            "(expected: input files that can be read; replace the damaged "
                + "file or leave it out of the input)");
    assertThat(retries).as("stage attempts retried").isZero();
  }

  @Test
  void shouldRefuseAShardDirThatCannotBeCreatedAtOnceWithoutRetries(@TempDir Path folder)
      throws Exception {
    Path notAFolder = Files.writeString(folder.resolve("a-file"), "in the way");
    String shardDir = notAFolder.resolve("shards").toString();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    int retries =
        retriesOf(
            () ->
                thrown.set(
                    catchThrowable(
                        () ->
                            declared(TestFrames.frame(spark, 4, 4, 4))
                                .option("shardDir", shardDir)
                                .run(counted()))));
    assertThat(thrown.get())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "rank 0 of 2: creating its shard folder in "
                + shardDir
                + " failed: "
                + "java.nio.file.FileSystemException: "
                + shardDir
                + ": Not a directory (expected: a "
                + "writable folder on a local disk; set shardDir to one); rank 1 of 2: creating its "
                + "shard folder in "
                + shardDir
                + " failed: java.nio.file.FileSystemException: "
                + shardDir
                + ": Not a directory (expected: a writable folder on a local disk; set "
                + "shardDir to one)");
    assertThat(retries).as("stage attempts retried").isZero();
  }

  @Test
  void shouldRefuseAWorldSizeLargerThanTheTaskSlotsBeforeAnyJob() {
    AtomicInteger jobs = new AtomicInteger();
    SparkListener listener =
        new SparkListener() {
          @Override
          public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart start) {
            jobs.incrementAndGet();
          }
        };
    spark.sparkContext().addSparkListener(listener);
    try {
      assertThatThrownBy(
              () -> declared(TestFrames.frame(spark, 4, 4, 4, 4)).worldSize(3).run(counted()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "worldSize 3: a barrier stage of 3 tasks needs 3 task slots at once, and "
                  + "the cluster has 2 (expected: worldSize at most 2, or more slots: more "
                  + "executors, more spark.executor.cores, or fewer cores or resources per task, "
                  + "spark.task.cpus and spark.task.resource.*)");
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
    assertThat(jobs).as("Spark jobs started").hasValue(0);
  }
}
