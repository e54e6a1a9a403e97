package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.testing.SparkClusters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to format("stoker"): each an error naming the path, column or value and the way out,
 * while planning wherever the footers tell, else when the row is read.
 */
class StokerSourceErrorsTest {
  @TempDir static Path dir;
  private static SparkSession spark;
  private static Path images;

  @BeforeAll
  static void startSpark() {
    spark = SparkClusters.local(2);
    images = Tables.images(spark, dir.resolve("images"), 200, 2);
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @AfterEach
  void leavesNothingOpen() throws InterruptedException {
    SourceLeaks.assertNothingOpen();
  }

  private static DataFrameReader stoker() {
    return spark.read().format("stoker").option("batchSize", 8).option("worldSize", 2);
  }

  /** Plans the read of {@code columns} (all but the string one when none are given). */
  private static void plan(Dataset<Row> df) {
    df.queryExecution().executedPlan();
  }

  private static Dataset<Row> tensors(Path path) {
    return stoker().load(path.toString()).drop("name");
  }

  /** 100 rows of {@code columns} in one file of one row group. */
  private static Path write(String name, String... columns) {
    return Tables.write(
        spark.range(0, 100, 1, 1).selectExpr(columns), dir.resolve(name), "134217728");
  }

  private static List<Path> parquetFiles(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(".parquet"))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  @Test
  void shouldRefuseAMissingPath() {
    String missing = dir.resolve("no-such-folder").toUri().toString();

    assertThatThrownBy(() -> stoker().load(missing))
        .hasMessageContaining(
            "path '"
                + missing
                + "' does not exist (expected: a Parquet file or a directory of them on a Hadoop file "
                + "system, e.g. file:/data/train or hdfs://namenode/data/train; check the path)");
  }

  @Test
  void shouldRefuseAFolderWithoutDataFiles() throws IOException {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    Files.writeString(empty.resolve("_SUCCESS"), "");
    Files.writeString(empty.resolve(".part-0.parquet.crc"), "x");

    assertThatThrownBy(() -> stoker().load(empty.toString()))
        .hasMessageContaining(
            "path '"
                + empty
                + "' holds no Parquet files (names starting with '_' or '.' are not data) "
                + "(expected: at least one Parquet file; check the path)");
  }

  @Test
  void shouldRefuseAFileThatIsNotParquet() throws IOException {
    Path mixed = Files.createDirectories(dir.resolve("mixed"));
    Files.copy(parquetFiles(images).get(0), mixed.resolve("part-0.parquet"));
    Files.writeString(mixed.resolve("notes.txt"), "not parquet at all");

    assertThatThrownBy(() -> stoker().load(mixed.toString()))
        .hasMessageContaining(
            "file 'file:" + mixed.resolve("notes.txt") + "' is not a readable " + "Parquet file (")
        .hasMessageContaining(
            "(expected: Parquet files only, written to the end; remove it, or "
                + "rename it with a leading '_' or '.' so that it is skipped)");
  }

  @Test
  void shouldRefuseATruncatedFile() throws IOException {
    Path cut = Files.createDirectories(dir.resolve("cut"));
    byte[] whole = Files.readAllBytes(parquetFiles(images).get(0));
    Files.write(cut.resolve("part-0.parquet"), Arrays.copyOf(whole, whole.length / 2));

    assertThatThrownBy(() -> stoker().load(cut.toString()))
        .hasMessageContaining(
            "file 'file:" + cut.resolve("part-0.parquet") + "' is not a readable Parquet file (");
  }

  @Test
  void shouldRefuseFilesWhoseSchemasDisagree() throws IOException {
    Path longs = write("long-labels", "id", "id as label");
    Path odd = Files.createDirectories(dir.resolve("odd"));
    Files.copy(
        parquetFiles(write("ints", "id", "cast(id as int) as label")).get(0),
        odd.resolve("a.parquet"));
    Files.copy(parquetFiles(longs).get(0), odd.resolve("b.parquet"));
    Path fewer = Files.createDirectories(dir.resolve("fewer"));
    Files.copy(parquetFiles(longs).get(0), fewer.resolve("a.parquet"));
    Files.copy(parquetFiles(write("ids", "id")).get(0), fewer.resolve("b.parquet"));

    assertThatThrownBy(() -> stoker().load(odd.toString()))
        .hasMessageContaining(
            "files disagree on their schema: file 'file:"
                + odd.resolve("b.parquet")
                + "' has column "
                + "'label' as bigint (Parquet: required int64 label), but file 'file:"
                + odd.resolve("a.parquet")
                + "' has column 'label' as int (Parquet: required int32 "
                + "label) (expected: the same columns and types in every file; rewrite the odd file, "
                + "or move it out of the input)");
    assertThatThrownBy(() -> stoker().load(fewer.toString()))
        .hasMessageContaining(
            "file 'file:" + fewer.resolve("b.parquet") + "' has no column 'label', but file");
  }

  @Test
  void shouldRefuseToLoadAColumnOfAnotherTypeButLetItBeLeftOut() {
    assertThatThrownBy(() -> plan(stoker().load(images.toString()).select("id", "name")))
        .hasMessageContaining(
            "column 'name' is string (Parquet: required binary name (STRING)) "
                + "in file 'file:"
                + images)
        .hasMessageContaining(
            "format(\"stoker\") reads float, double, int and long numbers, "
                + "binary and fixed_len_byte_array values (as uint8 tensors) and lists of float, "
                + "double, int or long (expected: one of those; select only the columns to load, e.g. "
                + ".select(\"image\", \"label\"), or cast it when writing the data)");
    assertThat(stoker().load(images.toString()).select("id", "image").count()).isEqualTo(200);
  }

  @Test
  void shouldRefuseNullsTheFootersShowWhilePlanning() {
    Path nullLists =
        write(
            "null-lists",
            "id",
            "if(id = 5, null, transform(sequence(0, 7), i -> cast(i as float))) as image");
    Path nullValues =
        write(
            "null-values",
            "id",
            "transform(sequence(0, 7), i -> if(id = 7 and i = 3, null, cast(i as float))) as image");
    Path nullLabels = write("null-labels", "id", "if(id = 9, null, 1) as label");

    assertThatThrownBy(() -> plan(tensors(nullLists)))
        .hasMessageContaining(
            "column 'image' "
                + "holds 1 null(s) (null lists, empty lists or null values) in row group 0 (rows 0..99)")
        .hasMessageContaining("of file 'file:" + nullLists)
        .hasMessageContaining(
            "(expected: no nulls in a column format(\"stoker\") loads; drop or "
                + "fill them before writing, e.g. df.na().drop() or df.na().fill(...))");
    assertThatThrownBy(() -> plan(tensors(nullValues)))
        .hasMessageContaining(
            "column 'image' holds 1 null(s) (null lists, empty lists or null values) in row group 0");
    assertThatThrownBy(() -> plan(tensors(nullLabels)))
        .hasMessageContaining("column 'label' holds 1 null(s) in row group 0");
  }

  @Test
  void shouldRefuseListsOfOtherLengthsWhilePlanningWhereTheFootersShowIt() {
    Path longer =
        write(
            "longer",
            "id",
            "transform(sequence(0, if(id = 5, 8, 7)), i -> cast(i as float)) as image");

    assertThatThrownBy(() -> plan(tensors(longer)))
        .hasMessageContaining(
            "column 'image' has "
                + "801 values in the 100 rows of row group 0 of file 'file:"
                + longer)
        .hasMessageContaining(
            "not a whole number per row (expected: the same number of values "
                + "in every row; rewrite the rows of other lengths, or filter them out)");
  }

  @Test
  void shouldRefuseARowOfAnotherLengthWhenReadingIt() throws IOException {
    Path lists =
        write(
            "uneven-lists",
            "id",
            "transform(sequence(0, if(id = 5, 8, if(id = 6, 6, 7))), i -> cast(i as float)) as image");
    Path bytes =
        write("uneven-bytes", "id", "unhex(if(id = 5, '0102030405', '01020304')) as pixels");
    String file = "file:" + parquetFiles(dir.resolve("uneven-lists")).get(0);

    assertThatThrownBy(() -> tensors(lists).collectAsList())
        .hasStackTraceContaining(
            "column 'image' has 9 values in row 5 of file '"
                + file
                + "' (expected: 8 = [8], as the "
                + "footers say; write every row with 8, or filter out the others before loading)");
    assertThatThrownBy(() -> tensors(bytes).collectAsList())
        .hasStackTraceContaining("column 'pixels' has 5 bytes in row 5 of file 'file:")
        .hasStackTraceContaining("(expected: 4 = [4], as the first row of file 'file:");
  }

  @Test
  void shouldRefuseBadOptionValuesNamingTheOptionAndTheValue() {
    String path = images.toString();
    assertBad(() -> stoker().option("batchSize", 0).load(path), "batchSize: 0 (expected: > 0)");
    assertBad(
        () -> stoker().option("worldSize", "two").load(path),
        "worldSize: 'two' (expected: a whole number)");
    assertBad(() -> stoker().option("worldSize", 0).load(path), "worldSize: 0 (expected: > 0)");
    assertBad(
        () -> stoker().option("epoch", -1).load(path),
        "epoch: '-1' (expected: a whole number from 0 to 2147483647)");
    assertBad(
        () -> stoker().option("shuffleBuffer", 0).load(path),
        "shuffleBuffer: '0' (expected: a whole number from 1 to 2147483647)");
    assertBad(
        () -> stoker().option("shuffle", "yes").load(path),
        "shuffle: 'yes' (expected: true or false)");
    assertBad(
        () -> stoker().option("batchsise", 8).load(path),
        "option: 'batchsise' (expected: a known option; did you mean 'batchSize'?)");
    assertBad(
        () -> stoker().option("rank", 1).load(path),
        "rank: '1' (expected: no rank; "
            + "format(\"stoker\") reads every rank at once, partition r being rank r: give worldSize "
            + "only)");
    assertBad(
        () -> stoker().option("onBadSample", "skip").load(path),
        "onBadSample: 'skip' "
            + "(expected: fail; format(\"stoker\") cannot skip a row without unbalancing the ranks");
    assertBad(
        () -> stoker().option("shape.image", "2,a").load(path),
        "shape.image: '2,a' " + "(expected: dimensions > 0 separated by commas, e.g. 3,32,32");
  }

  @Test
  void shouldRefuseShapesThatDoNotFitTheColumn() {
    String path = images.toString();
    assertBad(
        () -> plan(stoker().option("shape.image", "3,3").load(path).select("image")),
        "shape.image: [3,3] = 9 values (expected: 8 values per row, as the footers say; fix the "
            + "shape)");
    assertBad(
        () -> plan(stoker().option("shape.label", "1").load(path).select("label")),
        "shape.label: [1] (expected: no shape for column 'label', which holds one int32 per row)");
    assertBad(
        () -> plan(stoker().option("shape.imag", "8").load(path).select("image")),
        "shape.imag: no column 'imag' (expected one of: id, label, image, pixels, weight, levels, "
            + "mask, name)");
  }

  @Test
  void shouldRefuseMoreRowsPerStepThanTheDataHolds() {
    assertBad(
        () ->
            plan(
                stoker()
                    .option("batchSize", 64)
                    .option("worldSize", 4)
                    .load(images.toString())
                    .select("image")),
        "batchSize=64 x worldSize=4 = 256 rows per step, but '"
            + images
            + "' hold(s) 200 "
            + "row(s) (expected: at most 200, so that every rank gets a full batch; lower "
            + "batchSize or worldSize)");
  }

  /** The remedy every refused plan shape names. */
  private static final String REMEDY =
      "the data before writing it, or read the files with "
          + "spark.read().parquet(...), %s that and hand it to StokerSpark.on(...), which rebalances "
          + "the rows across the ranks)";

  @Test
  void shouldRefuseAFilterOverTheReadRatherThanYieldUnequalBatches() {
    Dataset<Row> filtered = tensors(images).where("id < 100").select("id", "label");

    assertThatThrownBy(filtered::count)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(
            "format(\"stoker\") read of '"
                + images
                + "': a filter over it "
                + "(id < 100) would drop rows from batches already planned, leaving the ranks with "
                + "unequal, partial batches (expected: no filter on a stoker read; filter "
                + String.format(REMEDY, "filter"));
  }

  @Test
  void shouldRefuseAFilterInSqlOverAViewOfTheRead() {
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW ranks3 USING stoker OPTIONS (path '"
            + images
            + "', batchSize 8, worldSize 3)");

    assertThatThrownBy(
            () ->
                spark
                    .sql("SELECT id FROM ranks3 WHERE id < 100 AND label IN (1, 2)")
                    .collectAsList())
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(": a filter over it (id < 100 AND label IN (1, 2)) would drop rows")
        .hasMessageContaining(String.format(REMEDY, "filter"));
    assertThatThrownBy(
            () -> spark.sql("SELECT id FROM ranks3 WHERE id > 150 OR label = 3").collectAsList())
        .hasMessageContaining(": a filter over it ((id > 150) OR (label = 3)) would drop rows");
  }

  /** Spark hands the source arithmetic in a condition only in ANSI mode (Spark 4's default). */
  @Test
  void shouldRefuseArithmeticInAFilterInAnsiMode() {
    Dataset<Row> ids = tensors(images).select("id");
    spark.conf().set("spark.sql.ansi.enabled", "true");
    try {
      assertThatThrownBy(() -> ids.where("id * 2 + 1 > 7").collectAsList())
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining(": a filter over it (((id * 2) + 1) > 7) would drop rows");
    } finally {
      spark.conf().unset("spark.sql.ansi.enabled");
    }
  }

  @Test
  void shouldRefuseASampleOfTheRead() {
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW sampled USING stoker OPTIONS (path '"
            + images
            + "', batchSize 8, worldSize 2)");

    assertThatThrownBy(() -> tensors(images).sample(0.5, 7).count())
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(
            "format(\"stoker\") read of '"
                + images
                + "': a sample of it "
                + "(fraction 0.5, without replacement, seed 7) would drop rows from batches already "
                + "planned, leaving the ranks with unequal, partial batches (expected: no sample of a "
                + "stoker read; sample "
                + String.format(REMEDY, "sample"));
    assertThatThrownBy(
            () -> spark.sql("SELECT id FROM sampled TABLESAMPLE (10 PERCENT)").collectAsList())
        .hasMessageContaining(": a sample of it (fraction 0.1, without");
  }

  /**
   * What Spark never hands a source: refused when the query is planned, by the check the source
   * adds to the session, naming what and the remedy; aggregates and a limit stay allowed.
   */
  @Test
  void shouldRefuseWhatSparkNeverHandsTheSourceAboveTheRead() {
    spark.udf().register("isEven", (UDF1<Long, Boolean>) id -> id % 2 == 0, DataTypes.BooleanType);
    Dataset<Row> read = tensors(images);
    String refused = "format(\"stoker\") read of '" + images + "': ";
    String breaks =
        " over it would drop or move rows of the batches planned for each rank, "
            + "leaving the ranks with unequal, partial batches, and Spark does not hand it to the "
            + "source (expected: no filter, join, distinct, sort or repartition over a stoker read; "
            + "apply it before writing the data, or read the files with spark.read().parquet(...), "
            + "apply it there and hand the result to StokerSpark.on(...), which rebalances the rows "
            + "across the ranks)";
    assertThatThrownBy(() -> read.where("isEven(id)").count())
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(refused + "a filter (")
        .hasMessageContaining(breaks);
    // some lines of Spark hand a random condition to the source, others do not: refused either way
    assertThatThrownBy(
            () ->
                StokerSpark.on(read.where("isEven(id)"))
                    .scalar("id", DType.INT64)
                    .worldSize(2)
                    .run((rank, loader) -> 0))
        .as("a run over such a read")
        .hasMessageContaining(refused + "a filter (");
    assertThatThrownBy(() -> read.where("rand(3) < 0.5").collectAsList())
        .hasMessageContaining(refused + "a filter")
        .hasMessageContaining("unequal, partial batches");
    assertThatThrownBy(() -> read.where("id IN (SELECT id FROM range(10))").count())
        .hasMessageContaining(refused + "a join (LEFT SEMI; a subquery over the read becomes one)");
    assertThatThrownBy(() -> read.join(spark.range(0, 10), "id").count())
        .hasMessageContaining(refused + "a join (INNER");
    assertThatThrownBy(() -> read.select("label").distinct().collectAsList())
        .hasMessageContaining(refused + "a distinct");
    assertThatThrownBy(() -> read.repartition(3).count())
        .hasMessageContaining(refused + "a repartition");
    spark.conf().set("spark.sql.ansi.enabled", "false");
    try {
      assertThatThrownBy(() -> read.select("id").where("id * 2 + 1 > 7").collectAsList())
          .hasMessageContaining(": a filter");
    } finally {
      spark.conf().unset("spark.sql.ansi.enabled");
    }
    Dataset<Row> cached = read.select("id", "label").cache();
    try {
      assertThat(cached.count()).isEqualTo(200);
      assertThatThrownBy(() -> cached.where("id < 10").count())
          .hasMessageContaining(refused.replace("': ", "' (cached): ") + "a filter ((");
    } finally {
      cached.unpersist(true);
    }
    assertThat(read.groupBy("label").count().count())
        .as("an aggregate's rows are no batches")
        .isPositive();
    assertThat(read.agg(functions.sum("id")).first().getLong(0)).isEqualTo(199 * 200 / 2);
  }

  @Test
  void shouldStillPruneColumnsAndTakeTheFirstRowsOfAnUnfilteredRead() {
    Dataset<Row> ids = tensors(images).select("id");
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW plain USING stoker OPTIONS (path '"
            + images
            + "', batchSize 8, worldSize 2)");

    assertThat(Tables.scan(ids).readSchema().fieldNames()).containsExactly("id");
    assertThat(ids.count()).isEqualTo(200);
    assertThat(ids.limit(3).collectAsList()).hasSize(3);
    assertThat(spark.sql("SELECT count(*) FROM (SELECT id FROM plain)").first().getLong(0))
        .isEqualTo(200);
  }

  private static void assertBad(Runnable read, String message) {
    assertThatThrownBy(read::run).hasMessageContaining(message);
  }
}
