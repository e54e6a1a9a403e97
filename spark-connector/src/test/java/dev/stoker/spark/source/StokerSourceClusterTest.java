package dev.stoker.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** format("stoker") with its ranks read in two executor JVMs of a local cluster. */
class StokerSourceClusterTest {
  @TempDir static Path dir;
  private static SparkSession spark;
  private static String images;

  @BeforeAll
  static void startCluster() {
    spark = SparkClusters.cluster(2, false);
    images = Tables.images(spark, dir.resolve("images"), 600, 2).toString();
  }

  @AfterAll
  static void stopCluster() {
    spark.stop();
  }

  /** 2 ranks of 32-row batches, read with a loader worker each. */
  private static Dataset<Row> read() {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", 32)
        .option("worldSize", 2)
        .option("shuffle", true)
        .option("seed", 3)
        .option("dropLast", true)
        .option("numWorkers", 1)
        .load(images)
        .select("id", "image", "pixels");
  }

  @Test
  void shouldReadEqualBatchesOnExecutorsOfTheirOwn() {
    List<List<Integer>> sizes = Tables.batchSizes(read());
    List<List<Long>> ranks = Tables.idsByRank(read(), "id");
    Dataset<Row> df = read();
    List<Row> rows = df.collectAsList();

    assertThat(sizes).hasSize(2).allSatisfy(rank -> assertThat(rank).hasSize(9).containsOnly(32));
    Set<Long> all = new HashSet<>();
    ranks.forEach(all::addAll);
    assertThat(all).hasSize(576);
    assertThat(rows)
        .allSatisfy(
            row -> assertThat(row.<Float>getList(1).get(5)).isEqualTo(row.getLong(0) * 8 + 5f));
    BatchScanExec scan = Tables.scanNode(df);
    assertThat(scan.metrics().apply(SourceMetrics.ROWS_READ).value()).isEqualTo(576);
    assertThat(scan.metrics().apply(SourceMetrics.BATCHES).value()).isEqualTo(18);
  }
}
