package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.spark.testing.SparkClusters;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * format("stoker") with option transforms over token sequences: {@code array<int>}, {@code
 * array<bigint>} and {@code array<smallint>} columns of random lengths (0 to 300 values, every
 * tenth row empty), Parquet pages v1 (Stoker's decoder) and v2 (Spark's reader), with and without a
 * dictionary. Every row arrives once with its values (smallint widened to int32), in equal batches
 * per rank and the same batches for any numWorkers; a null is an error naming the column.
 */
class TokenSequenceReadTest {
  private static final int ROWS = 600;
  private static final String DIGEST = "class:" + TokenDigest.class.getName();
  private static final String[] LISTS = {"tokens", "wide", "small"};

  @TempDir static Path dir;
  private static SparkSession spark;
  private static final Map<String, String> TABLES = new HashMap<>();

  /** Per table, per row id, each list column's values as int64. */
  private static final Map<String, Map<Long, long[][]>> EXPECTED = new HashMap<>();

  @BeforeAll
  static void startSpark() {
    spark = SparkClusters.local(2);
    write("v1-plain", "v1", "false", false);
    write("v1-dict", "v1", "true", true);
    write("v2-plain", "v2", "false", false);
    write("v2-dict", "v2", "true", true);
    String nullValue = "case when id = 17 then array(1, null, 3) else array(cast(id as int)) end";
    String nullRow = "case when id = 23 then null else array(cast(id as int), 2) end";
    writeNulls("v1-null-value", "v1", nullValue);
    writeNulls("v2-null-value", "v2", nullValue);
    writeNulls("v1-null-row", "v1", nullRow);
    writeNulls("v2-null-row", "v2", nullRow);
  }

  /** Random lengths 0 to 300, random values; from a vocabulary of 50 values if pooled. */
  private static void write(String name, String version, String dictionary, boolean pooled) {
    String path = dir.resolve(name).toString();
    String idx = "filter(sequence(0, n), i -> i < n)";
    String tokens = pooled ? "pmod(hash(id, i), 50)" : "hash(id, i)";
    String wide = pooled ? "pmod(xxhash64(id, i), 50)" : "xxhash64(id, i)";
    String small =
        pooled
            ? "cast(pmod(hash(id, i, 2), 50) as smallint)"
            : "cast(pmod(hash(id, i, 2), 65536) - 32768 as smallint)";
    spark
        .range(0, ROWS, 1, 3)
        .selectExpr(
            "id", "case when id % 10 = 0 then 0 else cast(pmod(hash(id, 1), 301) as int) end as n")
        .selectExpr(
            "id",
            "transform(" + idx + ", i -> " + tokens + ") as tokens",
            "transform(" + idx + ", i -> " + wide + ") as wide",
            "transform(" + idx + ", i -> " + small + ") as small")
        .write()
        .mode("overwrite")
        .option("parquet.writer.version", "v2".equals(version) ? "PARQUET_2_0" : "PARQUET_1_0")
        .option("parquet.enable.dictionary", dictionary)
        .option("parquet.page.size", "2048")
        .option("parquet.block.size", "65536")
        .parquet(path);
    TABLES.put(name, path);
    Map<Long, long[][]> expected = new HashMap<>();
    for (Row row : spark.read().parquet(path).collectAsList()) {
      long[][] lists = new long[LISTS.length][];
      for (int c = 0; c < LISTS.length; c++) {
        List<Object> values = row.getList(c + 1);
        lists[c] = values.stream().mapToLong(v -> ((Number) v).longValue()).toArray();
      }
      expected.put(row.getLong(0), lists);
    }
    EXPECTED.put(name, expected);
  }

  /** 40 rows of {@code id} and {@code tokens} as {@code tokens}, in one file. */
  private static void writeNulls(String name, String version, String tokens) {
    String path = dir.resolve(name).toString();
    spark
        .range(0, 40, 1, 1)
        .selectExpr("id", tokens + " as tokens")
        .write()
        .mode("overwrite")
        .option("parquet.writer.version", "v2".equals(version) ? "PARQUET_2_0" : "PARQUET_1_0")
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

  /**
   * The values' bytes as the window holds them: int32 (smallint widened) or int64, native order.
   */
  private static byte[] bytes(long[] values, int size) {
    ByteBuffer bytes = ByteBuffer.allocate(values.length * size).order(ByteOrder.nativeOrder());
    for (long value : values) {
      if (size == Long.BYTES) {
        bytes.putLong(value);
      } else {
        bytes.putInt((int) value);
      }
    }
    return bytes.array();
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1-plain", "v1-dict", "v2-plain", "v2-dict"})
  void shouldDeliverEveryRowOnceWithItsValues(String table) {
    Dataset<Row> df = reader(2).load(TABLES.get(table));

    assertThat(df.schema().fieldNames())
        .containsExactly(
            "id",
            "key",
            "tokens_length",
            "tokens_crc",
            "tokens_head",
            "wide_length",
            "wide_crc",
            "wide_head",
            "small_length",
            "small_crc",
            "small_head");
    assertThat(df.schema().apply("tokens_head").dataType())
        .isEqualTo(DataTypes.createArrayType(DataTypes.LongType, false));
    List<Row> rows = df.collectAsList();
    assertThat(rows).hasSize(ROWS);
    boolean[] seen = new boolean[ROWS];
    int[] sizes = {Integer.BYTES, Long.BYTES, Integer.BYTES};
    for (Row row : rows) {
      long id = row.getLong(0);
      assertThat(seen[(int) id]).as("row %d twice", id).isFalse();
      seen[(int) id] = true;
      assertThat(row.getLong(1)).as("key of row %d: its ordinal in the input", id).isEqualTo(id);
      long[][] lists = EXPECTED.get(table).get(id);
      for (int c = 0; c < LISTS.length; c++) {
        long[] values = lists[c];
        CRC32 crc = new CRC32();
        crc.update(bytes(values, sizes[c]));
        long[] head = new long[TokenDigest.HEAD];
        System.arraycopy(values, 0, head, 0, Math.min(values.length, head.length));
        String what = LISTS[c] + " of row " + id;
        assertThat(row.getInt(2 + 3 * c)).as("length of %s", what).isEqualTo(values.length);
        assertThat(row.getLong(3 + 3 * c)).as("crc of %s", what).isEqualTo(crc.getValue());
        assertThat(row.<Long>getList(4 + 3 * c)).as("head of %s", what).containsExactly(box(head));
      }
    }
    assertThat(EXPECTED.get(table).values()).anySatisfy(l -> assertThat(l[0]).isEmpty());
    assertThat(Tables.batchSizes(df))
        .hasSize(3)
        .allSatisfy(rank -> assertThat(rank).hasSize(10).containsOnly(20));
  }

  private static Long[] box(long[] values) {
    Long[] boxed = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return boxed;
  }

  /** Every rank's rows, in order, as {@code id:crc}. */
  private static List<List<String>> ranks(Dataset<Row> df) {
    List<List<String>> ranks = new ArrayList<>();
    for (Row row :
        df.selectExpr("spark_partition_id() as rank", "id", "tokens_crc").collectAsList()) {
      while (ranks.size() <= row.getInt(0)) {
        ranks.add(new ArrayList<>());
      }
      ranks.get(row.getInt(0)).add(row.getLong(1) + ":" + row.getLong(2));
    }
    return ranks;
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1-plain", "v2-dict"})
  void shouldYieldTheSameBatchesForZeroAndTwoWorkers(String table) {
    String path = TABLES.get(table);
    List<List<String>> none = ranks(reader(0).load(path));
    assertThat(none).hasSize(3).allSatisfy(rank -> assertThat(rank).hasSize(ROWS / 3));
    assertThat(ranks(reader(2).load(path))).isEqualTo(none);
  }

  @Test
  void shouldDecodeV1PagesItselfAndLeaveV2DeltaPagesToSpark() {
    assertThat(Tables.scan(reader(1).load(TABLES.get("v1-plain"))).sparkReaderRuns()).isZero();
    assertThat(Tables.scan(reader(1).load(TABLES.get("v1-dict"))).sparkReaderRuns()).isZero();
    assertThat(Tables.scan(reader(1).load(TABLES.get("v2-plain"))).sparkReaderRuns()).isPositive();
  }

  @ParameterizedTest
  @ValueSource(strings = {"v1", "v2"})
  void shouldNameTheColumnAndRowOfANull(String version) {
    assertThatThrownBy(
            () ->
                reader(1)
                    .option("batchSize", 5)
                    .option("worldSize", 1)
                    .load(TABLES.get(version + "-null-value"))
                    .collectAsList())
        .hasMessageContaining("column 'tokens' holds a null value in row 17 of file");
    assertThatThrownBy(
            () ->
                reader(1)
                    .option("batchSize", 5)
                    .option("worldSize", 1)
                    .load(TABLES.get(version + "-null-row"))
                    .collectAsList())
        .hasMessageContaining("column 'tokens' is null in row 23 of file");
  }

  @Test
  void shouldRefuseAListOfSmallintWithoutATransformNamingTheOption() {
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("batchSize", 20)
                    .load(TABLES.get("v1-plain"))
                    .select("small")
                    .collectAsList())
        .hasMessageContaining("column 'small' is array<smallint>")
        .hasMessageContaining("only with option transforms");
  }

  @Test
  void shouldRefuseListsOfVaryingLengthWithoutATransform() {
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("stoker")
                    .option("batchSize", 20)
                    .load(TABLES.get("v1-plain"))
                    .select("tokens")
                    .collectAsList())
        .hasMessageContaining("column 'tokens'");
  }
}
