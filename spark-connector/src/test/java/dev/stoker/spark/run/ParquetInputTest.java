package dev.stoker.spark.run;

import dev.stoker.spark.Leaks;
import dev.stoker.spark.RankIds;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TestFrames;
import dev.stoker.spark.TrainingResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.parquet.SplitDecoder;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
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
 * A plain Parquet scan is read by the ranks with Stoker's page decoder, from the scan's own file
 * splits: the same rows, batches and errors as through Spark's reader.
 */
@Timeout(120)
class ParquetInputTest {
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

  private static TrainingResult<RankIds> run(Dataset<Row> input, int epochs) {
    return StokerSpark.on(input).tensor("x", DType.FLOAT32, 3).scalar("id", DType.INT64)
        .options(LoaderOptions.builder().batchSize(4).dropLast(true).shuffle(true).seed(11)
            .build())
        .worldSize(2).run(RankIds.reading(epochs));
  }

  @Test
  void shouldDecodeAPlainScanInPlaceAndDeliverWhatSparksReaderWould(@TempDir Path folder) {
    String parquet = folder.resolve("frame.parquet").toString();
    TestFrames.frame(spark, 3, 14, 14).write().parquet(parquet);

    TrainingResult<RankIds> decoded = run(spark.read().parquet(parquet), 2);
    TrainingResult<RankIds> throughSpark = throughSparksReader(parquet, 2);

    assertThat(decoded.report().parquetDecoder()).isTrue();
    assertThat(decoded.report().rebalanced()).isFalse();
    assertThat(decoded.report().toString()).contains("Parquet pages decoded by Stoker");
    assertThat(throughSpark.report().parquetDecoder()).isFalse();
    assertThat(decoded.results()).allMatch(RankIds::consistent)
        .isEqualTo(throughSpark.results());
    assertThat(decoded.report().rows()).isEqualTo(28);
  }

  @Test
  void shouldDecodeDictionaryPagesToTheValuesSparksReaderGives(@TempDir Path folder) {
    String parquet = folder.resolve("dictionary.parquet").toString();
    TestFrames.frame(spark, 3, 14, 14).selectExpr("id % 4 as id",
        "transform(x, (v, e) -> cast((id % 4) * 1000 + e as float)) as x").write()
        .parquet(parquet);

    TrainingResult<RankIds> decoded = run(spark.read().parquet(parquet), 1);

    assertThat(decoded.report().parquetDecoder()).isTrue();
    assertThat(decoded.results()).allMatch(RankIds::consistent)
        .isEqualTo(throughSparksReader(parquet, 1).results());
  }

  /** The run over {@code parquet} read by Spark's reader: a cached scan is not decoded. */
  private static TrainingResult<RankIds> throughSparksReader(String parquet, int epochs) {
    Dataset<Row> cached = spark.read().parquet(parquet).cache();
    try {
      return run(cached, epochs);
    } finally {
      cached.unpersist(true);
    }
  }

  @Test
  void shouldDecodeEachSplitToTheRowsSparksReaderGivesItsPartition(@TempDir Path folder)
      throws Exception {
    String parquet = folder.resolve("groups.parquet").toString();
    TestFrames.frame(spark, 3, 300).write().option("parquet.block.size", "2048")
        .parquet(parquet);
    String before = spark.conf().get("spark.sql.files.maxPartitionBytes");
    spark.conf().set("spark.sql.files.maxPartitionBytes", "3000");
    try {
      Dataset<Row> scan = spark.read().parquet(parquet);
      ParquetInput input = ParquetInput.of(scan, FIELDS);
      assertThat(input).as("a plain scan of PLAIN pages").isNotNull();
      List<List<Long>> bySpark = scan.mapPartitions(
          (MapPartitionsFunction<Row, List<Long>>) rows -> {
            List<Long> ids = new ArrayList<>();
            rows.forEachRemaining(row -> ids.add(row.getLong(row.fieldIndex("id"))));
            return List.of(ids).iterator();
          }, Encoders.kryo((Class<List<Long>>) (Class<?>) List.class)).collectAsList();
      assertThat(bySpark).as("several partitions over one file").hasSizeGreaterThan(2);
      long total = 0;
      for (int p = 0; p < bySpark.size(); p++) {
        List<Long> ids = decodeIds(input, p);
        assertThat(ids).as("partition %d", p).isEqualTo(bySpark.get(p));
        total += ids.size();
      }
      assertThat(total).isEqualTo(300);
    } finally {
      spark.conf().set("spark.sql.files.maxPartitionBytes", before);
    }
  }

  /** The ids Stoker decodes from partition {@code p}'s splits, checking every x against its id. */
  private static List<Long> decodeIds(ParquetInput input, int p) throws Exception {
    List<Long> ids = new ArrayList<>();
    ByteBuffer x = ByteBuffer.allocateDirect(7 * 12).order(ByteOrder.nativeOrder());
    ByteBuffer id = ByteBuffer.allocateDirect(7 * 8).order(ByteOrder.nativeOrder());
    for (SplitDecoder.Split split : input.splits(p)) {
      try (SplitDecoder decoder = new SplitDecoder(split, FIELDS, input.conf())) {
        for (int n = decoder.read(7, new ByteBuffer[] {x, id}); n > 0;
            n = decoder.read(7, new ByteBuffer[] {x, id})) {
          for (int r = 0; r < n; r++) {
            long value = id.getLong(8 * r);
            assertThat(x.getFloat(12 * r + 8)).isEqualTo(value * 1000 + 2);
            ids.add(value);
          }
        }
      }
    }
    return ids;
  }

  @Test
  void shouldRefuseANullElementNamingTheFileTheColumnAndTheRow(@TempDir Path folder) {
    String parquet = folder.resolve("nulls.parquet").toString();
    StructType schema = new StructType().add("id", DataTypes.LongType, false)
        .add("x", DataTypes.createArrayType(DataTypes.FloatType, true), false);
    List<Row> rows = new ArrayList<>();
    for (long i = 0; i < 16; i++) {
      rows.add(RowFactory.create(i, new Float[] {1f, i == 9 ? null : 2f, 3f}));
    }
    spark.createDataFrame(rows.subList(0, 8), schema).coalesce(1)
        .union(spark.createDataFrame(rows.subList(8, 16), schema).coalesce(1))
        .write().parquet(parquet);
    Dataset<Row> scan = spark.read().parquet(parquet);
    assertThat(ParquetInput.of(scan, FIELDS)).isNotNull();

    assertThatThrownBy(() -> run(scan, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'x'").hasMessageContaining("row 1 ")
        .hasMessageContaining(".parquet");
  }

  @Test
  void shouldLeaveColumnsStoredAsAnotherTypeToSparksReader(@TempDir Path folder) {
    String parquet = folder.resolve("ints.parquet").toString();
    TestFrames.frame(spark, 3, 10, 10).selectExpr("cast(id as int) as id", "x").write()
        .parquet(parquet);
    Dataset<Row> scan = spark.read().parquet(parquet);
    assertThat(ParquetInput.of(scan, FIELDS)).as("int32 in the files, int64 declared").isNull();

    TrainingResult<RankIds> run = run(scan, 1);
    assertThat(run.report().parquetDecoder()).isFalse();
    assertThat(run.results()).allMatch(RankIds::consistent);
  }

  @Test
  void shouldNotDecodeAFilteredScan(@TempDir Path folder) {
    String parquet = folder.resolve("filtered.parquet").toString();
    TestFrames.frame(spark, 3, 10, 10).write().parquet(parquet);
    Dataset<Row> filtered = spark.read().parquet(parquet).where("id % 2 = 0");
    assertThat(ParquetInput.of(filtered, FIELDS)).isNull();
  }
}
