package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.spark.balance.InputChangedException;
import dev.stoker.spark.rows.BadRowException;
import dev.stoker.spark.shard.ShardBudgetException;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.api.java.function.MapFunction;
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
 * An input that cannot be loaded as declared stops the run with a message naming the column,
 * the row and what was expected, before any rank function runs, and without retries.
 */
@Timeout(120)
class InputErrorsTest {
  static final AtomicInteger CALLS = new AtomicInteger();
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
    return TestFrames.frame(spark, 4, sizes).map((MapFunction<Row, Row>) row -> row.getLong(0)
        == bad ? TestFrames.row(bad, 3) : row, Encoders.row(TestFrames.SCHEMA));
  }

  private static StokerSpark declared(Dataset<Row> input) {
    return StokerSpark.on(input).tensor("x", DType.FLOAT32, 4).scalar("id", DType.INT64)
        .option("batchSize", "2").worldSize(2);
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
  void shouldNameTheRowOfAWrongLengthInParquetReadInPlaceOrShuffled(@TempDir Path folder) {
    String parquet = folder.resolve("short.parquet").toString();
    withShortRow(6, 4, 4).write().parquet(parquet);
    Dataset<Row> input = spark.read().parquet(parquet);
    int partition = input.withColumn("p", functions.spark_partition_id())
        .filter(functions.col("id").equalTo(6)).first().getInt(2);
    String message = "column 'x' row 2 of partition " + partition + ": 3 values (expected: 4 = "
        + "[4])";
    // In place, the ranks decode the files themselves and name the file's row.
    assertThatThrownBy(() -> declared(input).run(counted()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("column 'x' has 3 values in row 2 of file '")
        .hasMessageContaining("short.parquet/part-")
        .hasMessageContaining("(expected: 4 = [4], as the declared shape says;");
    assertThatThrownBy(() -> declared(input).option("rebalance", "always").run(counted()))
        .isInstanceOf(BadRowException.class).hasMessage(message);
  }

  @Test
  void shouldNameTheRowOfANull() {
    Dataset<Row> input = spark.createDataFrame(List.of(RowFactory.create(0L, null),
        RowFactory.create(1L, 2.0)), new org.apache.spark.sql.types.StructType()
        .add("id", DataTypes.LongType).add("w", DataTypes.DoubleType)).repartition(1);
    assertThatThrownBy(() -> StokerSpark.on(input).scalar("w", DType.FLOAT64)
        .option("batchSize", "1").worldSize(2).run(counted()))
        .hasMessage("column 'w' row 0 of partition 0: null (expected: float64; drop or fill the "
            + "nulls first, e.g. df.na().drop())");
  }

  @Test
  void shouldRefuseAnInputThatChangesBetweenCountingAndReading() {
    Dataset<Row> changing = TestFrames.frame(spark, 4, 500, 500, 500).filter(functions.udf(
        (UDF0<Boolean>) () -> Math.random() < 0.5, DataTypes.BooleanType)
        .asNondeterministic().apply());
    assertThatThrownBy(() -> declared(changing).run(counted()))
        .isInstanceOf(InputChangedException.class)
        .hasMessageStartingWith("input partition ")
        .hasMessageContaining("were counted (expected: the same rows every time the DataFrame is "
            + "computed; cache() or checkpoint() a DataFrame that is not deterministic, e.g. one "
            + "that samples or reads changing files)");
  }

  @Test
  void shouldRefuseAShardOverBudgetOnTheDriverWhenItsSizeIsKnown() {
    assertThatThrownBy(() -> declared(TestFrames.frame(spark, 4, 10, 6, 0))
        .option("maxShardBytes", "100").run(counted()))
        .isInstanceOf(ShardBudgetException.class)
        .hasMessage("shard of rank 0: 8 rows x 24 bytes = 192 bytes (expected: at most "
            + "maxShardBytes = 100 bytes; raise maxShardBytes, use more ranks or fewer columns)");
  }

  @Test
  void shouldRefuseAShardOverBudgetOnTheRanksReadingInPlace() {
    assertThatThrownBy(() -> declared(TestFrames.frame(spark, 4, 8, 3))
        .option("maxShardBytes", "100").run(counted()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("shard of rank 0: 8 rows x 24 bytes = 192 bytes (expected: at most "
            + "maxShardBytes = 100 bytes; raise maxShardBytes, use more ranks or fewer columns)");
  }
}
