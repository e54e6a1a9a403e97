package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.spark.testing.SparkClusters;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Function1;
import scala.collection.AbstractIterator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/** Two executor JVMs with a fake GPU each run a barrier stage that exchanges values. */
class LocalClusterSmokeTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkClusters.cluster(2, true);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Each rank's GPU address and the processes of all ranks, gathered through the barrier. */
  private static final class Report
      implements Function1<scala.collection.Iterator<Integer>, scala.collection.Iterator<String>>,
          Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public scala.collection.Iterator<String> apply(scala.collection.Iterator<Integer> rows) {
      BarrierTaskContext task = BarrierTaskContext.get();
      String gpu = task.resourcesJMap().get("gpu").addresses()[0];
      String[] all = task.allGather(task.partitionId() + "@" + ProcessHandle.current().pid());
      String line = task.partitionId() + " gpu " + gpu + " of " + String.join(",", all);
      return new AbstractIterator<String>() {
        private boolean done;

        @Override
        public boolean hasNext() {
          return !done;
        }

        @Override
        public String next() {
          done = true;
          return line;
        }
      };
    }
  }

  @Test
  void shouldRunABarrierStageAcrossExecutorJvmsWithTheirGpus() {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    JavaRDD<Integer> ranks = context.parallelize(List.of(0, 1), 2);
    ClassTag<String> strings = ClassTag$.MODULE$.apply(String.class);
    List<String> seen =
        JavaRDD.fromRDD(ranks.rdd().barrier().mapPartitions(new Report(), false, strings), strings)
            .collect();
    assertThat(seen).hasSize(2);
    assertThat(seen.get(0)).startsWith("0 gpu 0 of 0@");
    String[] pids = seen.get(0).substring(seen.get(0).indexOf(" of ") + 4).split(",");
    assertThat(pids[0].split("@")[1])
        .as("ranks in separate JVMs")
        .isNotEqualTo(pids[1].split("@")[1]);
  }
}
