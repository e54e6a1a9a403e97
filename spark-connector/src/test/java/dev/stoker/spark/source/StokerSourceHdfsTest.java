package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.spark.testing.SparkClusters;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** format("stoker") reading Parquet from a real HDFS, started in this JVM. */
class StokerSourceHdfsTest {
  @TempDir static Path dir;
  private static MiniDFSCluster hdfs;
  private static SparkSession spark;
  private static String data;

  @BeforeAll
  static void startHdfsAndSpark() throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.resolve("hdfs").toString());
    hdfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    hdfs.waitActive();
    spark = SparkClusters.local(2);
    data = hdfs.getURI() + "/data/train";
    Tables.images(spark, data, 500, 2);
  }

  @AfterAll
  static void stopHdfsAndSpark() throws IOException {
    try {
      if (spark != null) {
        spark.stop();
      }
    } finally {
      FileSystem.closeAll();
      if (hdfs != null) {
        hdfs.shutdown();
      }
    }
  }

  @Test
  void shouldReadEqualBatchesFromHdfs() throws InterruptedException {
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
            .select("id", "image");

    List<List<Long>> ranks = Tables.idsByRank(df, "id");
    List<List<Integer>> sizes = Tables.batchSizes(df);

    assertThat(Tables.scan(df).description()).contains("hdfs://", "500 rows");
    assertThat(sizes).hasSize(2).allSatisfy(rank -> assertThat(rank).hasSize(12).containsOnly(20));
    Set<Long> all = new HashSet<>();
    ranks.forEach(all::addAll);
    assertThat(all).hasSize(480);
    assertThat(df.collectAsList())
        .allSatisfy(
            row -> assertThat(row.<Float>getList(1).get(3)).isEqualTo(row.getLong(0) * 8 + 3f));
    SourceLeaks.assertNothingOpen();
  }

  @Test
  void shouldNameAMissingHdfsPath() {
    assertThatThrownBy(() -> spark.read().format("stoker").load(data + "-missing"))
        .hasMessageContaining("path '" + data + "-missing' does not exist");
  }
}
