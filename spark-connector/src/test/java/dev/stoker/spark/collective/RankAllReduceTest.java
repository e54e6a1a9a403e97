package dev.stoker.spark.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.testing.SparkClusters;
import java.util.Arrays;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code RankContext}'s all-reduce on local[2]: two ranks in this JVM, over the loopback. */
@Timeout(120)
class RankAllReduceTest {
  private static final Logger LOG = LoggerFactory.getLogger(RankAllReduceTest.class);
  private static final int LENGTH = 100_000;
  private static final int STEPS = 200;
  private static SparkSession spark;
  private static Dataset<Row> input;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2, Map.of("spark.stage.maxConsecutiveAttempts", "1"));
    input = spark.range(0, 8).selectExpr("id", "array(cast(id as float)) as x");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static StokerSpark declared() {
    return StokerSpark.on(input)
        .tensor("x", DType.FLOAT32, 1)
        .scalar("id", DType.INT64)
        .options(LoaderOptions.builder().batchSize(2).dropLast(true).build())
        .worldSize(2);
  }

  /** Rank {@code rank}'s values at {@code step}: different on each rank and each step. */
  static float value(int rank, int step, int i) {
    return (rank + 1) * 0.1f * (step + i % 13) - rank;
  }

  @Test
  void shouldGiveEveryRankTheSameExactMeanOverManySteps() {
    TrainingResult<long[]> run =
        declared()
            .run(
                (rank, loader) -> {
                  float[] values = new float[LENGTH];
                  long digest = 0;
                  long nanos = 0;
                  for (int step = 0; step < STEPS; step++) {
                    for (int i = 0; i < LENGTH; i++) {
                      values[i] = value(rank.rank(), step, i);
                    }
                    long start = System.nanoTime();
                    rank.allReduceMean(values);
                    nanos +=
                        step == 0 ? 0 : System.nanoTime() - start; // the first call also connects
                    digest = digest * 31 + Arrays.hashCode(values);
                  }
                  return new long[] {digest, nanos / (STEPS - 1) / 1000};
                });
    long expected = 0;
    float[] mean = new float[LENGTH];
    for (int step = 0; step < STEPS; step++) {
      for (int i = 0; i < LENGTH; i++) {
        mean[i] = (value(0, step, i) + value(1, step, i)) / 2f;
      }
      expected = expected * 31 + Arrays.hashCode(mean);
    }
    assertThat(run.results()).extracting(result -> result[0]).containsExactly(expected, expected);
    LOG.info(
        "allReduceMean of {} floats on local[2]: {} us a call (rank 0), {} us (rank 1)",
        LENGTH,
        run.results().get(0)[1],
        run.results().get(1)[1]);
  }

  @Test
  void shouldFailTheRunNamingTheLengthsWhenRanksDisagree() {
    assertThatThrownBy(
            () ->
                declared()
                    .run(
                        (rank, loader) -> {
                          rank.allReduceSum(new double[] {1});
                          return rank.allReduceMean(new float[rank.rank() + 3]).length;
                        }))
        .hasMessageContaining(
            "allReduceMean(float[]) call #2: the ranks disagree: rank 0: "
                + "allReduceMean(float[]) of 3 values, rank 1: allReduceMean(float[]) of 4 values");
  }

  @Test
  void shouldFailTheRunNotHangWhenARankFailsBetweenReductions() {
    assertThatThrownBy(
            () ->
                declared()
                    .option("collectiveTimeout", "60s")
                    .run(
                        (rank, loader) -> {
                          for (int step = 0; step < 10; step++) {
                            if (rank.rank() == 1 && step == 3) {
                              throw new IllegalStateException("rank 1 fails at step 3");
                            }
                            rank.allReduceMean(new float[1000]);
                          }
                          return 0;
                        }))
        .hasMessageMatching("(?s).*(rank 1 fails at step 3|the connection to rank 1 was lost).*");
  }

  @Test
  void shouldNameTheRankThatEndsWhileTheOthersMakeTheirFirstAllReduce() {
    assertThatThrownBy(
            () ->
                declared()
                    .run(
                        (rank, loader) -> {
                          if (rank.rank() == 0) {
                            rank.allReduceMean(new float[4]);
                          }
                          return 0;
                        }))
        .hasMessageContaining(
            ": the ranks made different calls: rank 0: the first all-reduce, "
                + "which connects the ranks, rank 1: the end of its rank function (expected: every rank "
                + "to make the same allGather, barrier and all-reduce calls in the same order, and to end "
                + "its function only when the others do)");
  }

  @Test
  void shouldNameEachRanksCallWhenOneSkipsABarrier() {
    assertThatThrownBy(
            () ->
                declared()
                    .run(
                        (rank, loader) -> {
                          if (rank.rank() == 0) {
                            rank.barrier();
                          }
                          return rank.allGather("r" + rank.rank()).size();
                        }))
        .hasMessageFindingMatch(
            "(rank 0: barrier\\(\\)|rank 1: allGather\\(String\\)) "
                // whichever rank Spark reports first: each names every rank's call
                + "\\(barrier exchange #2\\): the ranks made different calls: rank 0: barrier\\(\\), "
                + "rank 1: allGather\\(String\\) \\(expected: every rank to make the same allGather, "
                + "barrier and all-reduce calls in the same order");
  }

  @Test
  void shouldBoundTheMeetingByTheCollectiveTimeoutAndLeaveNoThreadBehind() throws Exception {
    assertThatThrownBy(
            () ->
                declared()
                    .option("collectiveTimeout", "1s")
                    .run(
                        (rank, loader) -> {
                          if (rank.rank()
                              == 1) { // reaches its first all-reduce late: the stage ends it before
                            for (int i = 0; i < 6000 && !rank.taskContext().isInterrupted(); i++) {
                              Thread.sleep(10);
                            }
                          }
                          return rank.allReduceMean(new float[4]).length;
                        }))
        .hasMessageContaining(
            "rank 0: the first all-reduce, which connects the ranks (barrier "
                + "exchange #2): not every rank reached it within 1 s (Spark's barrier channel does not "
                + "say which; expected: every rank to make the same allGather, barrier and all-reduce "
                + "calls in the same order; if a rank is just slow, raise collectiveTimeout)");
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (barrierHelpers() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(barrierHelpers()).as("barrier helper threads left").isZero();
  }

  private static long barrierHelpers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().endsWith("-barrier"))
        .count();
  }
}
