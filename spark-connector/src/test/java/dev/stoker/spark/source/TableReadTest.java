package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.state.InputChangedException;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.InputLabels;
import dev.stoker.spark.parquet.PlanQuality;
import dev.stoker.spark.parquet.ReadRun;
import dev.stoker.spark.parquet.SourceDataset;
import dev.stoker.spark.testing.SparkClusters;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta and Iceberg tables, written by those libraries with deletes, updates and a compaction
 * between versions, read through format("stoker"): the snapshot's rows and no row it deleted, equal
 * full batches on every rank, time travel, and the version as the resume fingerprint.
 */
class TableReadTest {
  private static final int ROWS = 600;
  static final String CATALOG = "stoker_ice";

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String delta;

  @BeforeAll
  static void writeTables() throws Exception {
    spark = SparkClusters.local(2, tableSessionConf(dir.resolve("warehouse").toUri().toString()));
    delta = dir.resolve("delta").toString();
    String rowGroup = spark.sparkContext().hadoopConfiguration().get("parquet.block.size");
    // small row groups, so that deleted rows fall inside and between the groups a rank reads
    spark.sparkContext().hadoopConfiguration().set("parquet.block.size", "4096");
    try {
      Tables.imageRows(spark, ROWS, 3)
          .write()
          .format("delta")
          .option("delta.enableDeletionVectors", "true")
          .save(delta);
      spark.sql("DELETE FROM delta.`" + delta + "` WHERE id % 7 = 0");
      spark.sql("UPDATE delta.`" + delta + "` SET label = -1 WHERE id % 11 = 0");
      spark.sql(
          "CREATE TABLE "
              + CATALOG
              + ".db.t (id bigint, label int, image array<float>) USING iceberg TBLPROPERTIES "
              + "('format-version'='2', 'write.delete.mode'='merge-on-read', "
              + "'write.update.mode'='merge-on-read', 'write.parquet.row-group-size-bytes'='4096')");
      Tables.imageRows(spark, ROWS, 3)
          .select("id", "label", "image")
          .writeTo(CATALOG + ".db.t")
          .append();
      spark.sql("DELETE FROM " + CATALOG + ".db.t WHERE id % 7 = 0");
      spark.sql("UPDATE " + CATALOG + ".db.t SET label = -1 WHERE id % 11 = 0");
    } finally {
      if (rowGroup == null) {
        spark.sparkContext().hadoopConfiguration().unset("parquet.block.size");
      } else {
        spark.sparkContext().hadoopConfiguration().set("parquet.block.size", rowGroup);
      }
    }
  }

  /** Delta's and Iceberg's session extensions, and a Hadoop catalog of Iceberg tables. */
  static Map<String, String> tableSessionConf(String warehouse) {
    Map<String, String> conf = new HashMap<>();
    conf.put(
        "spark.sql.extensions",
        "io.delta.sql.DeltaSparkSessionExtension,"
            + "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    conf.put("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog");
    conf.put("spark.sql.catalog." + CATALOG, "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog." + CATALOG + ".type", "hadoop");
    conf.put("spark.sql.catalog." + CATALOG + ".warehouse", warehouse);
    // the catalog of Iceberg tables read by path: of type hive unless set (no Hive here)
    conf.put("spark.sql.catalog.default_iceberg", "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog.default_iceberg.type", "hadoop");
    conf.put("spark.sql.catalog.default_iceberg.warehouse", warehouse);
    return conf;
  }

  @AfterAll
  static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  @Test
  void shouldReadADeltaTableWithoutTheRowsItsDeletionVectorsDeleted() throws IOException {
    try (Stream<Path> files = Files.list(Path.of(delta))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("the table's deletes are deletion vectors, not rewritten files")
          .anyMatch(name -> name.startsWith("deletion_vector_"));
    }
    Dataset<Row> df =
        stoker().option("tableFormat", "delta").load(delta).select("id", "label", "image");

    assertSnapshotRows(df, spark.read().format("delta").load(delta));
    assertThat(Tables.scan(df).description()).contains("delta table '" + delta + "' at version 2");
    assertThat(runs(df)).as("runs that pass over deleted rows").anyMatch(r -> r.kept() != null);
  }

  @Test
  void shouldReadTheLabelsOfTheRowsADeltaSnapshotKeepsForTheOrdersMeasure() {
    PlanQuality.Labels labels =
        PlanQuality.labels(
            SourceDataset.load(Map.of("tableFormat", "delta", "path", delta, "labelColumn", "id")));
    List<Long> kept =
        spark.read().format("delta").load(delta).select("id").as(Encoders.LONG()).collectAsList();
    assertThat(labels.unmeasured()).isNull();
    assertThat(Arrays.stream(labels.read().labels()).mapToObj(id -> (long) id).toList())
        .containsExactlyInAnyOrderElementsOf(kept);
    // labels the table updated to -1 are no class indices: not measured, and said why
    assertThat(
            PlanQuality.labels(
                    SourceDataset.load(
                        Map.of("tableFormat", "delta", "path", delta, "labelColumn", "label")))
                .unmeasured())
        .contains("column 'label' holds -1 in row ");
  }

  @Test
  void shouldReadAnIcebergTableWithoutItsPositionAndEqualityDeletes() throws Exception {
    Table table = Spark3Util.loadIcebergTable(spark, CATALOG + ".db.t");
    long before = table.currentSnapshot().snapshotId();
    writeEqualityDeletes(table, 5, 6, 8, 9, 10);
    Dataset<Row> df =
        stoker().option("tableFormat", "iceberg").option("table", CATALOG + ".db.t").load();
    Dataset<Row> expected = spark.table(CATALOG + ".db.t");

    assertThat(expected.where("id in (5, 6, 8, 9, 10)").count()).isZero();
    assertSnapshotRows(df, expected);
    // by its path, as a table of Hadoop's catalog is found
    assertSnapshotRows(stoker().option("tableFormat", "iceberg").load(table.location()), expected);
    assertThat(runs(df)).anyMatch(r -> r.kept() != null);
    // the snapshot before the equality deletes still has them
    Dataset<Row> earlier =
        stoker()
            .option("tableFormat", "iceberg")
            .option("table", CATALOG + ".db.t")
            .option("versionAsOf", before)
            .load();
    assertThat(ids(earlier)).contains(5L, 6L, 8L).doesNotContain(7L, 14L);
    // the first snapshot, the append, has no delete file: its files keep every row
    long appended = table.history().get(0).snapshotId();
    Dataset<Row> first =
        stoker()
            .option("tableFormat", "iceberg")
            .option("table", CATALOG + ".db.t")
            .option("versionAsOf", appended)
            .load();
    assertThat(ids(first)).hasSize(ROWS).contains(7L, 14L);
    assertThat(runs(first)).allMatch(r -> r.kept() == null);
  }

  @Test
  void shouldTravelToAnEarlierVersionAndReadTheCompactedTableAlike() {
    Dataset<Row> first =
        stoker()
            .option("tableFormat", "delta")
            .option("versionAsOf", 0)
            .load(delta)
            .select("id", "label", "image");
    assertThat(ids(first)).hasSize(ROWS).contains(7L, 14L);
    assertThat(runs(first)).allMatch(r -> r.kept() == null);

    String compacted = dir.resolve("delta-compacted").toString();
    spark.read().format("delta").load(delta).write().format("delta").save(compacted);
    spark.sql("DELETE FROM delta.`" + compacted + "` WHERE id % 13 = 0");
    spark.sql("OPTIMIZE delta.`" + compacted + "`");
    assertSnapshotRows(
        stoker().option("tableFormat", "delta").load(compacted).select("id", "label", "image"),
        spark.read().format("delta").load(compacted));
  }

  @Test
  void shouldResumeOnTheVersionTheStateWasTakenOnOnly() {
    String path = dir.resolve("delta-moving").toString();
    Tables.imageRows(spark, 300, 2).write().format("delta").save(path);
    LoaderState state =
        Tables.scan(
                stoker().option("tableFormat", "delta").load(path).select("id", "label", "image"))
            .stateAfter(1);
    spark.sql("DELETE FROM delta.`" + path + "` WHERE id < 10");

    assertThatThrownBy(
            () ->
                Tables.scan(
                    stoker()
                        .option("tableFormat", "delta")
                        .option("resumeFrom", state.toString())
                        .load(path)
                        .select("id", "label", "image")))
        .isInstanceOf(InputChangedException.class)
        .hasMessageContaining("delta table '" + path + "' is at version 1, not 0 as then")
        .hasMessageContaining("set acceptChangedInput=true");
    StokerScan again =
        Tables.scan(
            stoker()
                .option("tableFormat", "delta")
                .option("versionAsOf", 0)
                .option("resumeFrom", state.toString())
                .load(path)
                .select("id", "label", "image"));
    assertThat(again.rowsPerRank()).isPositive();
    StokerScan accepted =
        Tables.scan(
            stoker()
                .option("tableFormat", "delta")
                .option("acceptChangedInput", true)
                .option("resumeFrom", state.toString())
                .load(path)
                .select("id", "label", "image"));
    assertThat(accepted.rows()).isEqualTo(290);
  }

  @Test
  void shouldRefuseWhatIsNotOneTableNamingIt() {
    assertThatThrownBy(() -> stoker().option("table", "db.t").load(delta).schema())
        .hasMessageContaining("table='db.t' without tableFormat");
    assertThatThrownBy(() -> stoker().option("tableFormat", "delta").load(delta, delta).schema())
        .hasMessageContaining("tableFormat=delta with 2 paths");
    assertThatThrownBy(() -> stoker().option("tableFormat", "parquet").load(delta).schema())
        .hasMessageContaining("tableFormat");
    String notATable = dir.resolve("not-a-table").toString();
    Tables.imageRows(spark, 20, 1).write().parquet(notATable);
    assertThatThrownBy(() -> stoker().option("tableFormat", "delta").load(notATable).schema())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("delta table '" + notATable + "'")
        .hasMessageContaining("cannot be read");
    assertThatThrownBy(
            () ->
                stoker()
                    .option("tableFormat", "delta")
                    .option("versionAsOf", 99)
                    .load(delta)
                    .schema())
        .hasMessageContaining("at versionAsOf=99 cannot be read");
  }

  @Test
  void shouldReadTheNumericPartitionColumnsOfADeltaTableFromItsLog() {
    for (String mode : List.of("none", "name")) {
      String partitioned = dir.resolve("delta-partitioned-" + mode).toString();
      // with column mapping, files of version 2 pages, which Spark's reader decodes for Stoker
      String writer = mode.equals("name") ? "PARQUET_2_0" : "PARQUET_1_0";
      spark.sparkContext().hadoopConfiguration().set("parquet.writer.version", writer);
      Tables.imageRows(spark, 200, 2)
          .selectExpr(
              "id",
              "label",
              "image",
              "cast(id % 4 as bigint) as quarter",
              "cast(id % 2 as double) / 2 as half",
              "concat('s', id % 2) as side")
          .write()
          .format("delta")
          .partitionBy("label", "quarter", "half", "side")
          .option("delta.enableDeletionVectors", "true")
          .option("delta.columnMapping.mode", mode)
          .option("delta.minReaderVersion", "3")
          .option("delta.minWriterVersion", "7")
          .save(partitioned);
      spark.sparkContext().hadoopConfiguration().unset("parquet.writer.version");
      spark.sql("DELETE FROM delta.`" + partitioned + "` WHERE id % 7 = 0");

      Dataset<Row> read = stoker().option("tableFormat", "delta").load(partitioned);
      assertThat(read.schema().fieldNames())
          .as(mode)
          .containsExactly("id", "image", "label", "quarter", "half");
      Dataset<Row> table = spark.read().format("delta").load(partitioned);
      for (String column : List.of("label", "quarter", "half")) {
        assertSameValues(read.select("id", column), table, column, 171);
      }
      // partition columns alone: rows of no column the files hold
      Map<Integer, Long> perLabel = new HashMap<>();
      for (Row row : read.select("label", "quarter").collectAsList()) {
        assertThat(row.getLong(1)).isBetween(0L, 3L);
        perLabel.merge(row.getInt(0), 1L, Long::sum);
      }
      assertThat(perLabel.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(160);
      assertThatThrownBy(() -> Tables.scan(read.select("id", "side"))).hasMessageContaining("side");

      // the order's label measure reads a partition's labels from the log, the kept rows only
      InputLabels labels =
          PlanQuality.labels(
                  SourceDataset.load(
                      Map.of("tableFormat", "delta", "path", partitioned, "labelColumn", "label")))
              .read();
      long[] counts = new long[10];
      for (Row row : table.groupBy("label").count().collectAsList()) {
        counts[row.getInt(0)] = row.getLong(1);
      }
      assertThat(labels.labels()).hasSize(171);
      assertThat(labels.counts()).containsExactly(counts);
    }

    String nulls = dir.resolve("delta-partition-nulls").toString();
    spark
        .range(0, 40)
        .selectExpr("id", "if(id % 5 = 0, null, cast(id % 3 as int)) as maybe")
        .write()
        .format("delta")
        .partitionBy("maybe")
        .save(nulls);
    assertThat(ids(stoker().option("tableFormat", "delta").load(nulls).select("id"))).hasSize(40);
    assertThatThrownBy(
            () ->
                Tables.scan(
                    stoker().option("tableFormat", "delta").load(nulls).select("id", "maybe")))
        .hasMessageContaining("maybe")
        .hasMessageContaining("null");
  }

  @Test
  void shouldReadDeltaColumnsUnderTheirMappedNamesRenamedAndDroppedAlike() throws IOException {
    for (String mode : List.of("name", "id")) {
      String mapped = dir.resolve("delta-mapped-" + mode).toString();
      String target = "delta.`" + mapped + "`";
      Tables.imageRows(spark, 100, 2)
          .selectExpr("id", "label", "image", "pixels", "id * 2 as twice")
          .write()
          .format("delta")
          .option("delta.columnMapping.mode", mode)
          .option("delta.minReaderVersion", "2")
          .option("delta.minWriterVersion", "5")
          .save(mapped);
      spark.sql("ALTER TABLE " + target + " RENAME COLUMN label TO klass");
      spark.sql("ALTER TABLE " + target + " DROP COLUMN twice");
      // in id mode, files of version 2 pages, whose encodings Spark's reader decodes for Stoker
      String writer = mode.equals("id") ? "PARQUET_2_0" : "PARQUET_1_0";
      spark.sparkContext().hadoopConfiguration().set("parquet.writer.version", writer);
      try {
        Tables.imageRows(spark, 200, 2)
            .where("id >= 100")
            .selectExpr("id", "label + 100 as klass", "image", "pixels")
            .write()
            .format("delta")
            .mode("append")
            .save(mapped);
      } finally {
        spark.sparkContext().hadoopConfiguration().unset("parquet.writer.version");
      }

      if (mode.equals("id")) {
        assertThat(encodings(Path.of(mapped))).contains(Encoding.DELTA_BINARY_PACKED);
      }
      Dataset<Row> read = stoker().option("tableFormat", "delta").load(mapped);
      assertThat(read.schema().fieldNames())
          .as(mode)
          .containsExactly("id", "klass", "image", "pixels");
      assertSameValues(
          read.select("id", "klass"), spark.read().format("delta").load(mapped), "klass", 200);
      assertSameValues(
          read.selectExpr("id", "hex(pixels) as hex"),
          spark.read().format("delta").load(mapped).selectExpr("id", "hex(pixels) as hex"),
          "hex",
          200);

      Dataset<Row> first =
          stoker().option("tableFormat", "delta").option("versionAsOf", 0).load(mapped);
      assertThat(first.schema().fieldNames())
          .as(mode)
          .containsExactly("id", "label", "image", "pixels", "twice");
      assertSameValues(
          first.select("id", "twice"),
          spark.read().format("delta").option("versionAsOf", 0).load(mapped),
          "twice",
          100);
    }
  }

  @Test
  void shouldReadAnIcebergColumnRenamedSinceSomeFilesWereWrittenByItsFieldId() throws Exception {
    String renamed = CATALOG + ".db.renamed";
    spark.sql("CREATE TABLE " + renamed + " (id bigint, label int, gone int) USING iceberg");
    spark
        .range(0, 40)
        .selectExpr("id", "cast(id % 3 as int) as label", "cast(id as int) as gone")
        .writeTo(renamed)
        .append();
    long before = spark.sql("SELECT snapshot_id FROM " + renamed + ".snapshots").first().getLong(0);
    spark.sql("ALTER TABLE " + renamed + " RENAME COLUMN label TO klass");
    spark.sql("ALTER TABLE " + renamed + " DROP COLUMN gone");
    spark
        .range(40, 80)
        .selectExpr("id", "cast(id % 3 + 10 as int) as klass")
        .writeTo(renamed)
        .append();

    Dataset<Row> read = stoker().option("tableFormat", "iceberg").option("table", renamed).load();
    assertThat(read.schema().fieldNames()).containsExactly("id", "klass");
    assertSameValues(read, spark.table(renamed), "klass", 80);

    Dataset<Row> travelled =
        stoker()
            .option("tableFormat", "iceberg")
            .option("table", renamed)
            .option("versionAsOf", before)
            .load();
    assertThat(travelled.schema().fieldNames()).containsExactly("id", "label", "gone");
    assertSameValues(
        travelled.select("id", "label"),
        spark.sql("SELECT * FROM " + renamed + " VERSION AS OF " + before),
        "label",
        40);
  }

  /** The encodings of the pages of every Parquet file in {@code dir}. */
  private static Set<Encoding> encodings(Path dir) throws IOException {
    Set<Encoding> encodings = new HashSet<>();
    List<Path> files;
    try (Stream<Path> listed = Files.list(dir)) {
      files = listed.filter(f -> f.toString().endsWith(".parquet")).toList();
    }
    for (Path file : files) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(file.toUri()),
                  spark.sparkContext().hadoopConfiguration()))) {
        for (BlockMetaData block : reader.getFooter().getBlocks()) {
          for (ColumnChunkMetaData chunk : block.getColumns()) {
            encodings.addAll(chunk.getEncodings());
          }
        }
      }
    }
    return encodings;
  }

  /**
   * {@code read}'s (id, column) rows are {@code table}'s, each id once, in the equal full batches
   * of 2 ranks of 10 rows out of {@code rows}.
   */
  private static void assertSameValues(
      Dataset<Row> read, Dataset<Row> table, String column, int rows) {
    Map<Long, Object> expected = new HashMap<>();
    for (Row row : table.select("id", column).collectAsList()) {
      expected.put(row.getLong(0), row.get(1));
    }
    assertThat(expected).hasSize(rows);
    Map<Long, Object> got = new HashMap<>();
    for (Row row : read.select("id", column).collectAsList()) {
      assertThat(got.put(row.getLong(0), row.get(1)))
          .as("id %d read once", row.getLong(0))
          .isNull();
    }
    assertThat(got).hasSize(rows / 20 * 20);
    assertThat(expected).containsAllEntriesOf(got);
  }

  @Test
  void shouldReadTheColumnsEveryFileHoldsOfATableThatGainedAColumn() {
    String grown = dir.resolve("delta-grown").toString();
    Tables.imageRows(spark, 100, 2).select("id", "label").write().format("delta").save(grown);
    spark.sql("ALTER TABLE delta.`" + grown + "` ADD COLUMNS (extra int)");
    spark
        .range(100, 200, 1, 2)
        .selectExpr("id", "cast(id % 10 as int) as label", "cast(id as int) as extra")
        .write()
        .format("delta")
        .mode("append")
        .save(grown);

    Dataset<Row> read = stoker().option("tableFormat", "delta").load(grown);
    assertThat(read.schema().fieldNames()).containsExactly("id", "label", "extra");
    assertSameValues(
        read.select("id", "label"), spark.read().format("delta").load(grown), "label", 200);
    assertThatThrownBy(() -> Tables.scan(read.select("id", "extra")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'extra' is not in the table's data file '")
        .hasMessageContaining("added to the table after that file was written")
        .hasMessageContaining("leave the column out of the read");
  }

  @Test
  void shouldNameATableWithNoRows() {
    String empty = CATALOG + ".db.empty";
    spark.sql("CREATE TABLE " + empty + " (id bigint) USING iceberg");
    assertThatThrownBy(
            () -> stoker().option("tableFormat", "iceberg").option("table", empty).load().schema())
        .hasMessageContaining("iceberg table '" + empty + "' has no snapshot");
    String emptied = dir.resolve("delta-emptied").toString();
    Tables.imageRows(spark, 20, 1).write().format("delta").save(emptied);
    spark.sql("DELETE FROM delta.`" + emptied + "`");
    assertThatThrownBy(() -> stoker().option("tableFormat", "delta").load(emptied).schema())
        .hasMessageContaining("delta table '" + emptied + "' at version 1 has no rows");
  }

  @Test
  void shouldPlanADeltaScanGivenToTheRunnerAsRowsNotAsItsFiles() {
    // Delta's file format is Parquet's: taken as plain files, the deleted rows would come back
    Dataset<Row> table = spark.read().format("delta").load(delta).select("id", "label");
    assertThat(dev.stoker.spark.run.PlannedInput.of(table, List.of())).isNull();
  }

  /** Every rank's ids are the snapshot's, each once, labels as updated, in equal full batches. */
  static void assertSnapshotRows(Dataset<Row> read, Dataset<Row> snapshot) {
    Map<Long, Integer> labels = new HashMap<>();
    for (Row row : snapshot.select("id", "label").collectAsList()) {
      labels.put(row.getLong(0), row.getInt(1));
    }
    List<List<Long>> ranks = Tables.idsByRank(read, "id");
    long perRank = labels.size() / 20 * 10;
    assertThat(ranks).hasSize(2).allSatisfy(rank -> assertThat(rank).hasSize((int) perRank));
    Set<Long> seen = new HashSet<>();
    for (Row row : read.select("id", "label", "image").collectAsList()) {
      long id = row.getLong(0);
      assertThat(seen.add(id)).as("id %d read once", id).isTrue();
      assertThat(labels).as("a row of the snapshot").containsKey(id);
      assertThat(row.getInt(1)).as("label of %d", id).isEqualTo(labels.get(id));
      assertThat(row.<Float>getList(2).get(7)).isEqualTo(id * 8 + 7f);
    }
    assertThat(labels.keySet()).noneMatch(id -> id % 7 == 0);
    assertThat(seen).hasSize((int) perRank * 2);
  }

  private static DataFrameReader stoker() {
    return stoker(spark);
  }

  /** A read of 2 ranks of 10 rows a batch, shuffled, with dropLast. */
  static DataFrameReader stoker(SparkSession spark) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", 10)
        .option("worldSize", 2)
        .option("shuffle", true)
        .option("seed", 3)
        .option("dropLast", true);
  }

  private static List<Long> ids(Dataset<Row> df) {
    List<Long> ids = new ArrayList<>();
    Tables.idsByRank(df, "id").forEach(ids::addAll);
    return ids;
  }

  private static List<ReadRun> runs(Dataset<Row> df) {
    List<ReadRun> runs = new ArrayList<>();
    StokerBatch batch = (StokerBatch) Tables.scan(df).toBatch();
    for (var partition : batch.planInputPartitions()) {
      runs.addAll(((RankPartition) partition).runs().runs());
    }
    return runs;
  }

  /** Commits an equality delete of {@code ids}, as Flink and other writers make them. */
  private static void writeEqualityDeletes(Table table, long... ids) throws IOException {
    org.apache.iceberg.Schema idOnly = table.schema().select("id");
    String file = table.location() + "/data/equality-deletes-" + System.nanoTime() + ".parquet";
    EqualityDeleteWriter<Record> writer =
        Parquet.writeDeletes(table.io().newOutputFile(file))
            .forTable(table)
            .rowSchema(idOnly)
            .withSpec(table.spec())
            .equalityFieldIds(table.schema().findField("id").fieldId())
            .createWriterFunc(GenericParquetWriter::create)
            .overwrite()
            .buildEqualityWriter();
    try (writer) {
      for (long id : ids) {
        GenericRecord record = GenericRecord.create(idOnly);
        record.setField("id", id);
        writer.write(record);
      }
    }
    table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
    new File(file).deleteOnExit();
  }
}
