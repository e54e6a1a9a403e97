package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * format("stoker") over a binary column of random lengths (0 to 5000 bytes, every seventh row
 * empty) with option transforms: Parquet pages v1 and v2, with and without a dictionary, snappy,
 * zstd and none; every row arrives once with its bytes, the same batches for any numWorkers, in two
 * runs and after a resume.
 */
class VariableBinaryReadTest {
  private static final int ROWS = 600;
  private static final String DIGEST = "class:" + BytesDigest.class.getName();

  @TempDir static Path dir;
  private static SparkSession spark;
  private static final Map<String, String> TABLES = new HashMap<>();

  @BeforeAll
  static void startSpark() {
    spark = SparkClusters.local(2);
    spark.udf().register("blob", (Long id) -> blob(id, false), DataTypes.BinaryType);
    spark.udf().register("pooled", (Long id) -> blob(id, true), DataTypes.BinaryType);
    write("v1-plain", "v1", "false", "snappy", "blob");
    write("v1-dict", "v1", "true", "zstd", "pooled");
    write("v2-plain", "v2", "false", "none", "blob");
    write("v2-dict", "v2", "true", "snappy", "pooled");
  }

  /** Row {@code id}'s bytes: random, 0 to 5000 of them; from a pool of 23 values if pooled. */
  static byte[] blob(long id, boolean pooled) {
    long seed = pooled ? id % 23 : id;
    if (seed % 7 == 0) {
      return new byte[0];
    }
    Random random = new Random(seed * 7919 + 13);
    byte[] bytes = new byte[random.nextInt(5001)];
    random.nextBytes(bytes);
    return bytes;
  }

  private static void write(
      String name, String version, String dictionary, String codec, String f) {
    String path = dir.resolve(name).toString();
    spark
        .range(0, ROWS, 1, 3)
        .selectExpr("id", "cast(id % 10 as int) as label", f + "(id) as data")
        .write()
        .mode("overwrite")
        .option("parquet.writer.version", "v2".equals(version) ? "PARQUET_2_0" : "PARQUET_1_0")
        .option("parquet.enable.dictionary", dictionary)
        .option("compression", codec)
        .option("parquet.block.size", "65536")
        .parquet(path);
    TABLES.put(name, path);
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @AfterEach
  void leavesNothingOpen() throws InterruptedException {
    SourceLeaks.assertNothingOpen();
  }

  private static DataFrameReader reader(int workers) {
    return spark
        .read()
        .format("stoker")
        .option("transforms", DIGEST)
        .option("batchSize", 20)
        .option("worldSize", 3)
        .option("shuffle", true)
        .option("seed", 7)
        .option("numWorkers", workers)
        .option("shuffleBuffer", 64);
  }

  /** Every rank's rows, in order, as {@code id:random}. */
  private static List<List<String>> ranks(Dataset<Row> df) {
    List<List<String>> ranks = new ArrayList<>();
    for (Row row : df.selectExpr("spark_partition_id() as rank", "id", "random").collectAsList()) {
      while (ranks.size() <= row.getInt(0)) {
        ranks.add(new ArrayList<>());
      }
      ranks.get(row.getInt(0)).add(row.getLong(1) + ":" + row.getLong(2));
    }
    return ranks;
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1-plain", "v1-dict", "v2-plain", "v2-dict"})
  void shouldDeliverEveryRowOnceWithItsBytes(String table) {
    Dataset<Row> df = reader(2).load(TABLES.get(table));

    assertThat(df.schema().fieldNames())
        .containsExactly("id", "label", "length", "head", "crc", "key", "random");
    assertThat(df.schema().apply("head").dataType()).isEqualTo(DataTypes.BinaryType);
    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(ROWS);
    boolean[] seen = new boolean[ROWS];
    boolean pooled = table.endsWith("dict");
    for (Row row : rows) {
      long id = row.getLong(0);
      assertThat(seen[(int) id]).as("row %d twice", id).isFalse();
      seen[(int) id] = true;
      byte[] bytes = blob(id, pooled);
      CRC32 crc = new CRC32();
      crc.update(bytes);
      assertThat(row.getInt(1)).isEqualTo((int) (id % 10));
      assertThat(row.getInt(2)).as("length of row %d", id).isEqualTo(bytes.length);
      assertThat((byte[]) row.get(3)).isEqualTo(Arrays.copyOf(bytes, 8));
      assertThat(row.getLong(4)).as("crc of row %d", id).isEqualTo(crc.getValue());
      assertThat(row.getLong(5)).as("key of row %d: its ordinal in the input", id).isEqualTo(id);
    }
    assertThat(Tables.batchSizes(df))
        .hasSize(3)
        .allSatisfy(rank -> assertThat(rank).hasSize(10).containsOnly(20));
  }

  @Test
  void shouldDecodeV1PagesItselfAndLeaveV2DeltaPagesToSpark() {
    assertThat(Tables.scan(reader(1).load(TABLES.get("v1-plain"))).sparkReaderRuns()).isZero();
    assertThat(Tables.scan(reader(1).load(TABLES.get("v1-dict"))).sparkReaderRuns()).isZero();
    assertThat(Tables.scan(reader(1).load(TABLES.get("v2-plain"))).sparkReaderRuns()).isPositive();
  }

  @Test
  void shouldYieldTheSameBatchesForAnyNumberOfWorkersAndInEveryRun() {
    String path = TABLES.get("v1-plain");
    List<List<String>> none = ranks(reader(0).load(path));
    assertThat(ranks(reader(1).load(path))).isEqualTo(none);
    assertThat(ranks(reader(3).load(path))).isEqualTo(none);
    assertThat(ranks(reader(3).load(path))).isEqualTo(none);
    assertThat(ranks(reader(2).load(TABLES.get("v2-plain")))).isEqualTo(none);
  }

  @Test
  void shouldResumeMidEpochWithTheSameSamples() {
    String path = TABLES.get("v2-dict");
    Dataset<Row> whole = reader(2).option("epoch", 1).load(path);
    List<List<String>> uninterrupted = ranks(whole);
    LoaderState state = Tables.scan(whole).stateAfter(4);

    List<List<String>> rest = ranks(reader(2).option("resumeFrom", state.toString()).load(path));

    for (int rank = 0; rank < 3; rank++) {
      List<String> all = uninterrupted.get(rank);
      assertThat(rest.get(rank)).as("rank %d", rank).isEqualTo(all.subList(4 * 20, all.size()));
    }
  }

  @Test
  void shouldShowOnlyTheColumnsAsked() {
    List<Row> rows = reader(1).load(TABLES.get("v1-dict")).select("crc", "id").collectAsList();
    assertThat(rows).hasSize(ROWS);
    for (Row row : rows) {
      CRC32 crc = new CRC32();
      crc.update(blob(row.getLong(1), true));
      assertThat(row.getLong(0)).isEqualTo(crc.getValue());
    }
    assertThat(reader(1).load(TABLES.get("v1-dict")).count()).isEqualTo(ROWS);
  }

  @Test
  void shouldRefuseABadSpecOrAMissingClassNamingTheOption() {
    String path = TABLES.get("v1-plain");
    assertThatThrownBy(() -> reader(1).option("transforms", "nope(").load(path))
        .hasMessageContaining("transforms: step 'nope('");
    assertThatThrownBy(() -> reader(1).option("transforms", "class:no.such.Transform").load(path))
        .hasMessageContaining("transforms: class 'no.such.Transform' not found");
  }

  @Test
  void shouldNameTheOptionWhenBytesOfVaryingLengthAreReadWithoutATransform() {
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("batchSize", 20)
                    .load(TABLES.get("v1-plain"))
                    .select("data")
                    .collectAsList())
        .hasMessageContaining("set option transforms");
  }

  private static StokerSpark run(Dataset<Row> input) {
    return StokerSpark.on(input)
        .scalar("id", DType.INT64)
        .scalar("label", DType.INT32)
        .scalar("length", DType.INT32)
        .tensor("head", DType.UINT8, 8)
        .scalar("crc", DType.INT64)
        .scalar("key", DType.INT64)
        .scalar("random", DType.INT64)
        .options(
            LoaderOptions.builder()
                .batchSize(20)
                .dropLast(true)
                .shuffle(true)
                .seed(7)
                .numWorkers(2)
                .build())
        .worldSize(2);
  }

  @Test
  void shouldRunTheReadsTransformInARunsRanksEveryEpochAnew() {
    Dataset<Row> input =
        spark
            .read()
            .format("stoker")
            .option("transforms", DIGEST)
            .option("shuffleBuffer", 64)
            .load(TABLES.get("v1-plain"));
    TrainingResult<List<String>> result =
        run(input)
            .option("epochs", "2")
            .run(
                (rank, loader) -> {
                  List<String> rows = new ArrayList<>();
                  for (int epoch = 0; epoch < 2; epoch++) {
                    for (Batch batch : loader.epoch(epoch)) {
                      try (batch) {
                        for (int r = 0; r < batch.size(); r++) {
                          long id = batch.getLong(0, r, 0);
                          byte[] bytes = blob(id, false);
                          CRC32 crc = new CRC32();
                          crc.update(bytes);
                          if (batch.getInt(2, r, 0) != bytes.length
                              || batch.getLong(4, r, 0) != crc.getValue()
                              || batch.getLong(5, r, 0) != id) {
                            throw new AssertionError("row " + id + " arrived with other bytes");
                          }
                          rows.add(epoch + ":" + id + ":" + batch.getLong(6, r, 0));
                        }
                      }
                    }
                  }
                  return rows;
                });
    List<String> all = new ArrayList<>();
    result.results().forEach(all::addAll);
    assertThat(all).hasSize(2 * ROWS);
    assertThat(all.stream().filter(r -> r.startsWith("0:")).map(r -> r.split(":")[1]).distinct())
        .hasSize(ROWS);
    Map<String, String> draws = new HashMap<>();
    for (String row : all) {
      String[] parts = row.split(":");
      draws.merge(parts[1], parts[2], (a, b) -> a.equals(b) ? "same" : "differs");
    }
    assertThat(draws.values()).as("each row's draw in epoch 0 and 1").doesNotContain("same");
  }

  @Test
  void shouldRefuseARunWhoseFieldsAreNotTheTransformsOutput() {
    Dataset<Row> input =
        spark.read().format("stoker").option("transforms", DIGEST).load(TABLES.get("v1-plain"));
    assertThatThrownBy(
            () ->
                StokerSpark.on(input)
                    .scalar("id", DType.INT64)
                    .worldSize(2)
                    .options(LoaderOptions.builder().batchSize(20).build())
                    .run((rank, loader) -> 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transforms='" + DIGEST + "' writes [id: int64[], label: int32[]")
        .hasMessageContaining("but the run declares [id: int64[]]");
  }
}
