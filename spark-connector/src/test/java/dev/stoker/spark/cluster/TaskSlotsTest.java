package dev.stoker.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** The check of worldSize against the cluster's task slots, on clusters the test makes up. */
class TaskSlotsTest {
  /** A cluster whose slots come from a list, one value per look, the last one staying. */
  private static final class Made implements TaskSlots.Cluster {
    final List<Integer> slots;
    final boolean mayCome;
    final boolean dynamic;
    final long waitMillis;
    final List<Long> sleeps = new ArrayList<>();
    int looks;

    Made(boolean mayCome, boolean dynamic, long waitMillis, Integer... slots) {
      this.slots = List.of(slots);
      this.mayCome = mayCome;
      this.dynamic = dynamic;
      this.waitMillis = waitMillis;
    }

    @Override
    public int slots() {
      return slots.get(Math.min(looks++, slots.size() - 1));
    }

    @Override
    public boolean executorsMayCome() {
      return mayCome;
    }

    @Override
    public boolean dynamicAllocation() {
      return dynamic;
    }

    @Override
    public long waitMillis() {
      return waitMillis;
    }

    @Override
    public void sleep(long millis) throws InterruptedException {
      sleeps.add(millis);
      Thread.sleep(millis);
    }
  }

  @Test
  void shouldGoOnWhenTheSlotsAreThere() {
    Made cluster = new Made(false, false, 30_000, 4);
    TaskSlots.require(cluster, 4);
    assertThat(cluster.sleeps).isEmpty();
  }

  @Test
  void shouldFailAtOnceWithBothNumbersWhereNoExecutorCanCome() {
    Made cluster = new Made(false, false, 30_000, 2);
    assertThatThrownBy(() -> TaskSlots.require(cluster, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "worldSize 3: a barrier stage of 3 tasks needs 3 task slots at once, and the "
                + "cluster has 2 (expected: worldSize at most 2, or more slots: more executors, more "
                + "spark.executor.cores, or fewer cores or resources per task, spark.task.cpus and "
                + "spark.task.resource.*)");
    assertThat(cluster.sleeps).isEmpty();
  }

  @Test
  void shouldWaitForExecutorsThatCanStillRegister() {
    Made cluster = new Made(true, false, 30_000, 0, 1, 1, 2);
    TaskSlots.require(cluster, 2);
    assertThat(cluster.sleeps).hasSize(3);
  }

  @Test
  void shouldSayHowLongItWaitedWhenTheyDoNotCome() {
    Made cluster = new Made(true, false, 30, 1);
    assertThatThrownBy(() -> TaskSlots.require(cluster, 2))
        .hasMessageStartingWith(
            "worldSize 2: a barrier stage of 2 tasks needs 2 task slots at "
                + "once, and the cluster has 1 after waiting ")
        .hasMessageContaining(
            " ms for executors to register "
                + "(spark.scheduler.maxRegisteredResourcesWaitingTime) (expected: worldSize at most 1,");
    assertThat(cluster.sleeps).isNotEmpty().allMatch(millis -> millis == 30);
  }

  @Test
  void shouldRefuseDynamicAllocationWhichSparkDoesNotRunBarrierStagesWith() {
    assertThatThrownBy(() -> TaskSlots.require(new Made(true, true, 30_000, 8), 2))
        .hasMessage(
            "worldSize 2: spark.dynamicAllocation.enabled is true, and Spark runs no "
                + "barrier stage with dynamic allocation (expected: spark.dynamicAllocation.enabled="
                + "false and at least 2 task slots, e.g. spark.executor.instances x "
                + "spark.executor.cores / spark.task.cpus)");
  }

  @Test
  void shouldKnowTheExecutorsAskedFor() {
    SparkConf none = new SparkConf(false);
    assertThat(TaskSlots.expectedExecutors("local-cluster[3,1,1024]", none)).isEqualTo(3);
    assertThat(TaskSlots.expectedExecutors("yarn", none)).isZero();
    assertThat(
            TaskSlots.expectedExecutors(
                "yarn", new SparkConf(false).set("spark.executor.instances", "5")))
        .isEqualTo(5);
    assertThat(
            TaskSlots.expectedExecutors(
                "spark://h:7077", new SparkConf(false).set("spark.executor.instances", "many")))
        .isZero();
  }
}
