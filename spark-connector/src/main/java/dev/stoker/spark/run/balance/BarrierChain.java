package dev.stoker.spark.run.balance;

import dev.stoker.spark.cluster.ScalaSeqs;
import org.apache.spark.NarrowDependency;
import org.apache.spark.rdd.RDD;

/**
 * Whether an input can be the barrier stage's input as it is: it has one partition per rank, and
 * every RDD computed in the same stage (its narrow ancestors) has as many partitions, which is what
 * Spark requires of a barrier stage (no union, coalesce or partition pruning inside it).
 */
public final class BarrierChain {
  private BarrierChain() {}

  public static boolean fits(RDD<?> rdd, int worldSize) {
    if (rdd.getNumPartitions() != worldSize) {
      return false;
    }
    for (Object parent : ScalaSeqs.call(rdd, "dependencies")) {
      if (parent instanceof NarrowDependency<?> narrow && !fits(narrow.rdd(), worldSize)) {
        return false;
      }
    }
    return true;
  }
}
