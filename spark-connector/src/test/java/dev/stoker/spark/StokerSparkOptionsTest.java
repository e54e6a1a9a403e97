package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.testing.SparkClusters;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every bad declaration or option is refused where it is given or when the run starts. */
class StokerSparkOptionsTest {
  private static SparkSession spark;
  private static Dataset<Row> input;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(1);
    input = TestFrames.frame(spark, 4, 8, 8);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static StokerSpark declared() {
    return StokerSpark.on(input).tensor("x", DType.FLOAT32, 4).scalar("id", DType.INT64);
  }

  private static final RankFunction<Integer> NOTHING = (rank, loader) -> rank.rank();

  @Test
  void shouldSuggestTheOptionMeantForAMistypedName() {
    assertThatThrownBy(() -> declared().option("batch_size", "4").worldSize(2).run(NOTHING))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("option: 'batch_size' (expected: a known option; did you mean 'batchSize'?)");
    assertThatThrownBy(() -> declared().option("maxShardByte", "1g").worldSize(2).run(NOTHING))
        .hasMessage(
            "option: 'maxShardByte' (expected: a known option; did you mean "
                + "'maxShardBytes'?)");
  }

  @Test
  void shouldReadTheLoadersKnobsWithTheLoadersErrors() {
    assertThatThrownBy(() -> declared().option("batchSize", "0").worldSize(2).run(NOTHING))
        .hasMessage("batchSize: 0 (expected: > 0)");
    assertThatThrownBy(
            () ->
                declared()
                    .option("batchSize", "4")
                    .option("BATCHSIZE", "8")
                    .worldSize(2)
                    .run(NOTHING))
        .hasMessage(
            "batchSize: given twice, as 'BATCHSIZE' = '8' and 'batchSize' = '4' "
                + "(expected: once; option names ignore case)");
  }

  @Test
  void shouldReadTheRunsOptionsLikeTheLoadersOnes() {
    SparkRunOptions read =
        SparkRunOptions.fromMap(
            Map.of(
                "MAXSHARDBYTES",
                "2g",
                "shardDir",
                " /tmp/x ",
                "Rebalance",
                "ALWAYS",
                "progressInterval",
                "250ms",
                "batchSize",
                "4"));
    assertThat(read.maxShardBytes()).isEqualTo(2L << 30);
    assertThat(read.shardDir()).isEqualTo("/tmp/x");
    assertThat(read.rebalance()).isEqualTo(Rebalance.ALWAYS);
    assertThat(read.progressInterval()).isEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("maxShardBytes", "1b0")))
        .hasMessage(
            "maxShardBytes: '1b0' (expected: bytes, or digits with a binary unit k, m, "
                + "g or t, e.g. 512m or 4GiB)");
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("maxShardBytes", "0")))
        .hasMessage("maxShardBytes: 0 (expected: > 0)");
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("progressInterval", "0")))
        .hasMessage("progressInterval: 0 ms (expected: > 0)");
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("progressInterval", "soon")))
        .hasMessage(
            "progressInterval: 'soon' (expected: milliseconds, or digits with a unit "
                + "ns, us, ms, s, m, min or h, e.g. 30s)");
    assertThat(SparkRunOptions.fromMap(Map.of()).collectiveTimeout())
        .isEqualTo(Duration.ofMinutes(10));
    assertThat(SparkRunOptions.fromMap(Map.of("CollectiveTimeout", "90s")).collectiveTimeout())
        .isEqualTo(Duration.ofSeconds(90));
    assertThat(SparkRunOptions.fromMap(Map.of("collectiveTimeout", "0")).collectiveTimeout())
        .isZero();
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("collectiveTimeout", "later")))
        .hasMessage(
            "collectiveTimeout: 'later' (expected: milliseconds, or digits with a unit "
                + "ns, us, ms, s, m, min or h, e.g. 30s)");
    assertThatThrownBy(() -> SparkRunOptions.builder().collectiveTimeout(Duration.ofSeconds(-1)))
        .hasMessage("collectiveTimeout: -1000 ms (expected: >= 0; 0 waits forever)");
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("rebalance", "sometimes")))
        .hasMessage("rebalance: 'sometimes' (expected: auto or always)");
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("shardDir", " ")))
        .hasMessage("shardDir: '' (expected: a folder on the executors' local disk)");
  }

  @Test
  void shouldRefuseARankOptionSinceSparkGivesEachRankItsOwn() {
    assertThatThrownBy(() -> declared().option("Rank", "1"))
        .hasMessage(
            "rank: '1' (expected: no rank option; each rank is the partition id of its "
                + "barrier task)");
  }

  @Test
  void shouldAskForTheWorldSize() {
    assertThatThrownBy(() -> declared().run(NOTHING))
        .hasMessage(
            "worldSize: not set (expected: the number of ranks, e.g. worldSize(2) or "
                + "option(\"worldSize\", \"2\"))");
    assertThatThrownBy(() -> declared().worldSize(0))
        .hasMessage("worldSize: 0 (expected: > 0, the number of ranks)");
    assertThatThrownBy(() -> declared().option("worldSize", "two").run(NOTHING))
        .hasMessage("worldSize: 'two' (expected: a whole number)");
    assertThatThrownBy(() -> declared().option("worldSize", "3").worldSize(2).run(NOTHING))
        .hasMessage("worldSize: 2 and '3' as a string (expected: one number of ranks)");
  }

  @Test
  void shouldTakeEachKindOfOptionsOneWayOnly() {
    assertThatThrownBy(
            () ->
                declared()
                    .options(LoaderOptions.builder().batchSize(4).build())
                    .options(Map.of("shuffle", "true"))
                    .worldSize(2)
                    .run(NOTHING))
        .hasMessage(
            "options: [shuffle] as strings and LoaderOptions too (expected: the loader's "
                + "knobs one way only)");
    assertThatThrownBy(
            () ->
                declared()
                    .runOptions(SparkRunOptions.builder().build())
                    .option("shardDir", "/tmp")
                    .worldSize(2)
                    .run(NOTHING))
        .hasMessage(
            "options: [shardDir] as strings and SparkRunOptions too (expected: the run's "
                + "options one way only)");
  }

  @Test
  void shouldRefuseBadDeclarationsWhereTheyAreMade() {
    assertThatThrownBy(() -> StokerSpark.on(input).worldSize(2).run(NOTHING))
        .hasMessage("columns: none declared (expected: at least one tensor(...) or scalar(...))");
    assertThatThrownBy(() -> StokerSpark.on(input).tensor("x", DType.FLOAT32))
        .hasMessage(
            "tensor 'x': shape [] (expected: at least one dimension; declare a single "
                + "value with scalar(...))");
    assertThatThrownBy(() -> declared().scalar("id", DType.INT32))
        .hasMessage(
            "column 'id': declared twice, as id: int64[] and id: int32[] (expected: " + "once)");
    assertThatThrownBy(() -> declared().tensor("y", DType.FLOAT32, 4))
        .hasMessage("column 'y': not in the DataFrame (expected one of: id, x)");
    assertThatThrownBy(() -> StokerSpark.on(input).tensor("x", DType.FLOAT64, 4))
        .hasMessage(
            "column 'x': array<float> for float64[4] (expected: array<double>; cast it "
                + "in Spark, e.g. col(\"x\").cast(\"array<double>\"))");
  }

  @Test
  void shouldRefuseAFunctionThatCannotTravelToTheExecutors() {
    Object notSerializable = new Object();
    assertThatThrownBy(
            () -> declared().worldSize(2).run((rank, loader) -> notSerializable.hashCode()))
        .hasMessageStartingWith("function: dev.stoker.spark.StokerSparkOptionsTest$$Lambda")
        .hasMessageContaining(
            "is not serializable: java.io.NotSerializableException: "
                + "java.lang.Object (expected: a serializable function; a lambda is, unless it "
                + "captures something that is not, such as the SparkSession or a DataFrame)");
  }

  @Test
  void shouldVerifyPageChecksumsUnlessTurnedOff() {
    assertThat(SparkRunOptions.fromMap(Map.of()).verifyChecksums()).isTrue();
    assertThat(SparkRunOptions.fromMap(Map.of("VERIFYCHECKSUMS", "false")).verifyChecksums())
        .isFalse();
    assertThat(SparkRunOptions.builder().verifyChecksums(false).build().verifyChecksums())
        .isFalse();
    assertThatThrownBy(() -> SparkRunOptions.fromMap(Map.of("verifyChecksums", "off")))
        .hasMessage("verifyChecksums: 'off' (expected: true or false)");
  }
}
