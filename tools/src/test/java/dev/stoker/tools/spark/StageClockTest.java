package dev.stoker.tools.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.testing.SparkClusters;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** The clock tells the ranks' stage by its RDD's name, on Scala 2.12 and 2.13 alike. */
class StageClockTest {

  @Test
  void shouldTellTheRanksStageByItsRddName() throws TimeoutException {
    SparkSession spark = SparkClusters.local(1);
    try {
      List<StageInfo> stages = new CopyOnWriteArrayList<>();
      spark
          .sparkContext()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onStageCompleted(SparkListenerStageCompleted completed) {
                  stages.add(completed.stageInfo());
                }
              });
      JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
      context.parallelize(List.of(1, 2, 3)).setName(StageClock.RANKS).count();
      context.parallelize(List.of(1, 2, 3)).setName("input").count();
      spark.sparkContext().listenerBus().waitUntilEmpty();

      assertThat(stages).hasSize(2);
      assertThat(StageClock.isRanks(stages.get(0))).as("the ranks' stage").isTrue();
      assertThat(StageClock.isRanks(stages.get(1))).as("another stage").isFalse();
    } finally {
      spark.stop();
    }
  }
}
