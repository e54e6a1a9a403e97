package dev.stoker.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.spark.source.StokerScan;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A rank's loader over its planned runs: what it reads, and that its windows are let go. */
class RankLoaderTest {
  private static final int ROWS = 1_000;

  @TempDir static Path data;
  private static SparkSession spark;
  private static StokerScan scan;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2);
    spark
        .range(0, ROWS, 1, 3)
        .selectExpr("array(cast(id as float), 1.5f) AS x", "id")
        .write()
        .parquet(data.resolve("t").toString());
    SparkPlan plan =
        spark
            .read()
            .format("stoker")
            .option("batchSize", 64)
            .option("worldSize", 2)
            .option("shuffle", true)
            .option("seed", 5)
            .load(data.resolve("t").toString())
            .select("id", "x")
            .queryExecution()
            .executedPlan();
    while (!(plan instanceof BatchScanExec)) {
      plan = plan.children().apply(0);
    }
    scan = (StokerScan) ((BatchScanExec) plan).scan();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void shouldReadTheRanksRowsAndFreeItsWindowsOnClose() {
    AtomicReference<HostAllocator> windows = new AtomicReference<>();
    RankRuns runs = scan.plan().rank(1);
    RankLoader rank =
        RankLoader.builder(scan.config(), runs)
            .namedAfter("test")
            .dataset(
                given -> {
                  windows.set(given);
                  return new RankDataset(scan.config(), runs, given, new SourceCounters());
                })
            .build();
    long rows = 0;
    try (BatchIterator batches = rank.loader().epoch(0).iterator()) {
      while (batches.hasNext()) {
        try (Batch batch = batches.next()) {
          rows += batch.size();
        }
      }
    }
    assertThat(rank.loader().options().name()).isEqualTo("test-rank1");
    assertThat(rows).isEqualTo(runs.rows()).isEqualTo(ROWS / 2);
    assertThat(windows.get().name()).isEqualTo("test-rank1-windows");
    rank.close();
    rank.close();
    assertThatThrownBy(() -> windows.get().allocate(8))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void shouldFreeTheWindowsWhenTheDatasetFailsToBuild() {
    AtomicReference<HostAllocator> windows = new AtomicReference<>();
    Error failure = new OutOfMemoryError("the dataset could not be made");
    assertThatThrownBy(
            () ->
                RankLoader.builder(scan.config(), scan.plan().rank(0))
                    .dataset(
                        given -> {
                          windows.set(given);
                          throw failure;
                        })
                    .build())
        .isSameAs(failure);
    assertThat(windows.get().name()).isEqualTo("stoker-source-rank0-windows");
    assertThatThrownBy(() -> windows.get().allocate(8)).isInstanceOf(IllegalStateException.class);
  }
}
