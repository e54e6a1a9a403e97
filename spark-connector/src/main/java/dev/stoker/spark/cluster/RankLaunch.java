package dev.stoker.spark.cluster;

import java.util.Locale;
import org.apache.spark.BarrierTaskContext;

/**
 * Refuses an attempt of a barrier stage that Spark started with fewer ranks than the stage has.
 * When one rank's task finishes at the moment another's fails, Spark (3.5) keeps the finished
 * task's output and starts the stage again for the failed rank alone; that rank's first exchange
 * would then wait for ranks that never come (Spark's own wait lasts a year, a training's collective
 * until it times out). Failing the attempt makes Spark drop every rank's output and run all of them
 * again. The runner's ranks and the Python ranks both ask as they start.
 */
public final class RankLaunch {
  private RankLaunch() {}

  /**
   * Why this attempt of {@code task}'s stage cannot run, or null when it started every one of the
   * stage's {@code worldSize} ranks.
   */
  public static String refusal(BarrierTaskContext task, int worldSize) {
    return refusal(
        task.getTaskInfos().length, worldSize, task.partitionId(), task.stageAttemptNumber());
  }

  /**
   * Why an attempt that started {@code launched} of {@code worldSize} ranks cannot run, or null
   * when it started all of them.
   */
  static String refusal(int launched, int worldSize, int rank, int attempt) {
    if (launched >= worldSize) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "rank %d of %d (stage attempt %d): Spark started this attempt of the barrier stage with %d "
            + "of its %d ranks (the others ended in an attempt that failed as they finished), and "
            + "the ranks can only run together; failing it so that Spark runs every rank again",
        rank,
        worldSize,
        attempt,
        launched,
        worldSize);
  }
}
