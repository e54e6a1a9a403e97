package dev.stoker.spark.cluster;

import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, before any work (counting, shuffle, stage), that the cluster can run worldSize tasks at
 * once, as a barrier stage needs: else Spark itself would re-check for ten minutes before it
 * failed. Where executors can still register (the application is starting, or fewer than it asked
 * for are up), waits for them within spark.scheduler.maxRegisteredResourcesWaitingTime.
 */
public final class TaskSlots {
  private static final Logger LOG = LoggerFactory.getLogger(TaskSlots.class);
  private static final Pattern LOCAL_CLUSTER =
      Pattern.compile("local-cluster\\[\\s*(\\d+)\\s*,.*\\]");

  /** Spark's bound on waiting for executors to register before it schedules. */
  static final String WAIT_KEY = "spark.scheduler.maxRegisteredResourcesWaitingTime";

  /** What the check needs to know of a cluster; {@link #of} reads it from Spark. */
  interface Cluster {
    /** Tasks of the default resource profile it can run at once now. */
    int slots();

    /** Whether more executors can still register. */
    boolean executorsMayCome();

    boolean dynamicAllocation();

    long waitMillis();

    void sleep(long millis) throws InterruptedException;
  }

  private TaskSlots() {}

  /**
   * Returns once {@code worldSize} tasks fit {@code spark}'s cluster at once.
   *
   * @throws IllegalArgumentException if they do not, naming both numbers and the remedy
   */
  public static void require(SparkContext spark, int worldSize) {
    require(of(spark), worldSize);
  }

  /**
   * Returns once {@code worldSize} tasks fit the cluster at once.
   *
   * @throws IllegalArgumentException if they do not, naming both numbers and the remedy
   */
  static void require(Cluster cluster, int worldSize) {
    if (cluster.dynamicAllocation()) {
      throw new IllegalArgumentException(
          "worldSize "
              + worldSize
              + ": spark.dynamicAllocation"
              + ".enabled is true, and Spark runs no barrier stage with dynamic allocation "
              + "(expected: spark.dynamicAllocation.enabled=false and at least "
              + worldSize
              + " task slots, e.g. spark.executor.instances x spark.executor.cores / "
              + "spark.task.cpus)");
    }
    int slots = cluster.slots();
    if (slots >= worldSize) {
      return;
    }
    long waited = 0;
    if (cluster.executorsMayCome() && cluster.waitMillis() > 0) {
      LOG.warn(
          "stoker: worldSize {} needs {} task slots at once and the cluster has {}; "
              + "waiting up to {} ms ({}) for more executors to register",
          worldSize,
          worldSize,
          slots,
          cluster.waitMillis(),
          WAIT_KEY);
      long step = Math.max(1, Math.min(100, cluster.waitMillis()));
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cluster.waitMillis());
      long start = System.nanoTime();
      try {
        while (slots < worldSize && System.nanoTime() < deadline) {
          cluster.sleep(step);
          slots = cluster.slots();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted waiting for task slots for worldSize " + worldSize, e);
      }
      if (slots >= worldSize) {
        return;
      }
      waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
    throw new IllegalArgumentException(
        String.format(
            "worldSize %d: a barrier stage of %d tasks "
                + "needs %d task slots at once, and the cluster has %d%s (expected: worldSize at most "
                + "%d, or more slots: more executors, more spark.executor.cores, or fewer cores or "
                + "resources per task, spark.task.cpus and spark.task.resource.*)",
            worldSize,
            worldSize,
            worldSize,
            slots,
            waited > 0
                ? " after waiting "
                    + waited
                    + " ms for executors to "
                    + "register ("
                    + WAIT_KEY
                    + ")"
                : "",
            slots));
  }

  /** The cluster of {@code spark}. */
  static Cluster of(SparkContext spark) {
    SparkConf conf = spark.getConf();
    return new Cluster() {
      @Override
      public int slots() {
        return spark.maxNumConcurrentTasks(spark.resourceProfileManager().defaultResourceProfile());
      }

      @Override
      public boolean executorsMayCome() {
        if (spark.isLocal()) {
          return false;
        }
        int registered = spark.statusTracker().getExecutorInfos().length - 1; // the driver's
        int expected = expectedExecutors(spark.master(), conf);
        return registered <= 0 || (expected > 0 && registered < expected);
      }

      @Override
      public boolean dynamicAllocation() {
        return !spark.isLocal() && conf.getBoolean("spark.dynamicAllocation.enabled", false);
      }

      @Override
      public long waitMillis() {
        return conf.getTimeAsMs(WAIT_KEY, "30s");
      }

      @Override
      public void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
      }
    };
  }

  /** The executors the application asked for, or 0 if it does not say. */
  static int expectedExecutors(String master, SparkConf conf) {
    Matcher cluster = LOCAL_CLUSTER.matcher(master);
    if (cluster.matches()) {
      return Integer.parseInt(cluster.group(1));
    }
    try {
      return Math.max(0, conf.getInt("spark.executor.instances", 0));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
