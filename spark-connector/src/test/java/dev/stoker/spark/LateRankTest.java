package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.testing.SparkClusters;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rank far later than {@code collectiveTimeout} on the rows path (a DataFrame that is not a
 * Parquet scan), with Spark's stage retries at their default: the other rank's timeout fails the
 * attempt, the late rank is interrupted at once (whatever the caller's thread had set), each retry
 * starts without waiting for it, and the job's failure comes after every rank ended and took its
 * shard files with it, however long the stopped rank takes to let go.
 */
@Timeout(500)
class LateRankTest {
  /** Longer than Spark's four attempts of a 2 s timeout take, however loaded the machine. */
  private static final long LATE_SECONDS = 400;

  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void shouldStopTheLateRankAtOnceAndLeaveNoShardWhenTheRunFails() {
    Dataset<Row> rows = spark.range(0, 64, 1, 2).selectExpr("id", "array(cast(id as float)) as x");
    spark.sparkContext().setLocalProperty("spark.job.interruptOnCancel", "false"); // the caller's
    long begin = System.nanoTime();
    try {
      assertThatThrownBy(
              () ->
                  StokerSpark.on(rows)
                      .tensor("x", DType.FLOAT32, 1)
                      .scalar("id", DType.INT64)
                      .worldSize(2)
                      .option("collectiveTimeout", "2s")
                      .options(LoaderOptions.builder().batchSize(4).dropLast(true).build())
                      .run(
                          (rank, loader) -> {
                            if (rank.rank() == 1) {
                              try {
                                TimeUnit.SECONDS.sleep(LATE_SECONDS);
                              } finally { // a rank that takes a while to let go once stopped: its
                                // files go after
                                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                                while (System.nanoTime() < until) {
                                  LockSupport.parkNanos(until - System.nanoTime());
                                }
                              }
                            }
                            rank.allReduceMean(new float[4]);
                            return 0;
                          }))
          .hasMessageContaining("collectiveTimeout");
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - begin);
      assertThat(seconds)
          .as("seconds to fail, the late rank asleep for %d", LATE_SECONDS)
          .isLessThan(LATE_SECONDS / 2);
      assertThat(Leaks.shardFolders()).as("shard folders when the run has failed").isEmpty();
      assertThat(spark.sparkContext().getLocalProperty("spark.job.interruptOnCancel"))
          .as("the caller's setting, given back")
          .isEqualTo("false");
    } finally {
      spark.sparkContext().setLocalProperty("spark.job.interruptOnCancel", null);
    }
  }
}
