package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.parquet.StorageCounters;
import dev.stoker.spark.testing.S3TestServer;
import dev.stoker.spark.testing.SparkClusters;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Delta table (partitioned, with column mapping) and an Iceberg table, each with deletes, on a
 * real S3 server, written by their libraries through s3a and read through format("stoker"): the
 * snapshot's rows, read from the store; a run's second epoch served by the shard cache without a
 * request.
 */
class TableReadS3Test {
  private static S3TestServer s3;
  private static SparkSession spark;
  private static String delta;
  private static String iceberg;

  @BeforeAll
  static void writeTables() throws Exception {
    s3 = S3TestServer.shared();
    String root = s3.path("tables-" + System.nanoTime());
    Map<String, String> conf = new HashMap<>(s3.sparkConf());
    conf.putAll(TableReadTest.tableSessionConf(root + "/warehouse"));
    spark = SparkClusters.local(2, conf);
    delta = root + "/delta";
    // partitioned, with column mapping: the partition values' and the physical names' paths are
    // the store's
    Tables.imageRows(spark, 400, 2)
        .write()
        .format("delta")
        .partitionBy("label")
        .option("delta.enableDeletionVectors", "true")
        .option("delta.columnMapping.mode", "name")
        .option("delta.minReaderVersion", "3")
        .option("delta.minWriterVersion", "7")
        .save(delta);
    spark.sql("DELETE FROM delta.`" + delta + "` WHERE id % 7 = 0");
    iceberg = TableReadTest.CATALOG + ".s3.t";
    spark.sql(
        "CREATE TABLE "
            + iceberg
            + " (id bigint, label int, image array<float>) USING iceberg TBLPROPERTIES "
            + "('format-version'='2', 'write.delete.mode'='merge-on-read')");
    Tables.imageRows(spark, 400, 2).select("id", "label", "image").writeTo(iceberg).append();
    spark.sql("DELETE FROM " + iceberg + " WHERE id % 7 = 0");
  }

  @AfterAll
  static void stopSpark() throws IOException {
    try {
      if (spark != null) {
        spark.stop();
      }
    } finally {
      FileSystem.closeAll();
    }
  }

  @Test
  void shouldReadTheSnapshotsOfBothTablesFromTheStore() {
    StorageCounters before = StorageCounters.now();
    TableReadTest.assertSnapshotRows(
        TableReadTest.stoker(spark)
            .option("tableFormat", "delta")
            .load(delta)
            .select("id", "label", "image"),
        spark.read().format("delta").load(delta));
    TableReadTest.assertSnapshotRows(
        TableReadTest.stoker(spark)
            .option("tableFormat", "iceberg")
            .option("table", iceberg)
            .load()
            .select("id", "label", "image"),
        spark.table(iceberg));
    assertThat(StorageCounters.now().since(before).requests())
        .as("page requests to the store")
        .isPositive();
  }

  @Test
  void shouldServeTheSecondEpochOfARunOverATableFromTheShardCache() {
    Dataset<Row> table =
        TableReadTest.stoker(spark)
            .option("tableFormat", "delta")
            .load(delta)
            .select("id", "label");
    long before = s3.objectGets();
    TrainingResult<long[]> run =
        StokerSpark.on(table)
            .scalar("id", DType.INT64)
            .scalar("label", DType.INT32)
            .options(
                LoaderOptions.builder().batchSize(10).shuffle(true).seed(3).dropLast(true).build())
            .option("cache", "auto")
            .option("epochs", "2")
            .worldSize(2)
            .run(
                (rank, loader) -> {
                  long ids = 0;
                  long deleted = 0;
                  for (Batch batch : loader.epoch(0)) {
                    for (int r = 0; r < batch.size(); r++) {
                      ids++;
                      deleted += batch.getLong(0, r, 0) % 7 == 0 ? 1 : 0;
                    }
                  }
                  rank.barrier();
                  long gets = s3.objectGets();
                  for (Batch batch : loader.epoch(1)) {
                    ids += batch.size();
                  }
                  rank.barrier();
                  return new long[] {ids, deleted, s3.objectGets() - gets};
                });
    assertThat(s3.objectGets() - before).as("the first epoch read the objects").isPositive();
    long kept = 400 - (400 + 6) / 7;
    for (long[] rank : run.results()) {
      assertThat(rank[0]).as("rows of two epochs").isEqualTo(2 * (kept / 20 * 10));
      assertThat(rank[1]).as("deleted rows read").isZero();
      assertThat(rank[2]).as("the store's object reads in the second epoch").isZero();
    }
  }
}
