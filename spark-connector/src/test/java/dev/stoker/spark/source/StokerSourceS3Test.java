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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * format("stoker") reading Parquet objects from a real S3 server through Hadoop's s3a connector:
 * the rows as written, each row group's column chunks read in one request, nothing else asked of
 * the store; a run over them, whose second epoch the shard cache serves without a request.
 */
class StokerSourceS3Test {
  private static S3TestServer s3;
  private static SparkSession spark;
  private static String data;

  @BeforeAll
  static void startSpark() {
    s3 = S3TestServer.shared();
    spark = SparkClusters.local(2, s3.sparkConf());
    data = s3.path("images-" + System.nanoTime());
    Tables.images(spark, data, 500, 2);
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
  void shouldReadEqualBatchesFromS3InOneRequestPerRowGroup() throws Exception {
    Dataset<Row> df =
        spark
            .read()
            .format("stoker")
            .option("batchSize", 20)
            .option("worldSize", 2)
            .option("shuffle", true)
            .option("seed", 7)
            .option("dropLast", true)
            .load(data)
            .select("id", "image", "weight", "label");
    StorageCounters before = StorageCounters.now();
    long getsBefore = s3.objectGets();
    long headsBefore = s3.objectHeads();
    List<List<Long>> ranks = Tables.idsByRank(df, "id");
    StorageCounters read = StorageCounters.now().since(before);
    long gets = s3.objectGets() - getsBefore;
    long heads = s3.objectHeads() - headsBefore;

    assertThat(Tables.scan(df).description()).contains("s3a://", "500 rows");
    Set<Long> all = new HashSet<>();
    ranks.forEach(all::addAll);
    assertThat(ranks).allSatisfy(rank -> assertThat(rank).hasSize(240));
    assertThat(all).hasSize(480);
    assertThat(df.collectAsList())
        .allSatisfy(
            row -> {
              assertThat(row.<Float>getList(1).get(3)).isEqualTo(row.getLong(0) * 8 + 3f);
              assertThat(row.getDouble(2)).isEqualTo(row.getLong(0) / 2.0);
              assertThat(row.getInt(3)).isEqualTo((int) (row.getLong(0) % 10));
            });
    int rowGroups = rowGroups(data);
    assertThat(rowGroups).as("the data's row groups").isGreaterThan(4);
    // the four columns of a row group lie side by side: one request reads them (a row group cut
    // between the two ranks is read by both); one per column chunk would be 4 per row group
    assertThat(read.requests()).as("page requests").isBetween((long) rowGroups, rowGroups + 1L);
    assertThat(read.retries()).isZero();
    assertThat(read.waitNanos()).as("the ranks waited for the store a little").isPositive();
    assertThat(Tables.scanNode(df).metrics().contains(SourceMetrics.STORAGE_WAIT)).isTrue();
    // the ranks got each file's status and footer with the plan: they ask for neither
    assertThat(gets).as("the server's object reads").isEqualTo(read.requests());
    assertThat(heads).as("the server's object heads").isZero();
    SourceLeaks.assertNothingOpen();
  }

  @Test
  void shouldServeTheSecondEpochOfARunFromTheShardCacheWithoutARequest() {
    long before = s3.objectGets();
    TrainingResult<long[]> run =
        StokerSpark.on(spark.read().parquet(data).select("id", "label"))
            .scalar("id", DType.INT64)
            .scalar("label", DType.INT32)
            .options(
                LoaderOptions.builder().batchSize(20).shuffle(true).seed(3).dropLast(true).build())
            .option("cache", "auto")
            .option("epochs", "2")
            .worldSize(2)
            .run(
                (rank, loader) -> {
                  long rows = 0;
                  for (Batch batch : loader.epoch(0)) {
                    rows += batch.size();
                  }
                  rank.barrier();
                  long gets = s3.objectGets();
                  for (Batch batch : loader.epoch(1)) {
                    rows += batch.size();
                  }
                  rank.barrier();
                  return new long[] {rows, s3.objectGets() - gets};
                });
    assertThat(s3.objectGets() - before).as("the first epoch read the objects").isPositive();
    for (long[] rank : run.results()) {
      assertThat(rank[0]).as("rows of two epochs").isEqualTo(2 * 240);
      assertThat(rank[1]).as("the store's object reads in the second epoch").isZero();
    }
  }

  private static int rowGroups(String path) throws IOException {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    FileSystem fs = new Path(path).getFileSystem(conf);
    int groups = 0;
    for (FileStatus file : fs.listStatus(new Path(path))) {
      if (file.getPath().getName().endsWith(".parquet")) {
        try (ParquetFileReader reader =
            ParquetFileReader.open(HadoopInputFile.fromStatus(file, conf))) {
          groups += reader.getRowGroups().size();
        }
      }
    }
    return groups;
  }
}
