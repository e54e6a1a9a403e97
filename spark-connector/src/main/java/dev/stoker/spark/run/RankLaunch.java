package dev.stoker.spark.run;

import dev.stoker.spark.RankFailedException;
import java.util.Locale;
import org.apache.spark.BarrierTaskContext;

/**
 * Refuses an attempt of a barrier stage that Spark started with fewer ranks than the stage has.
 * When one rank's task finishes at the moment another's fails, Spark (3.5) keeps the finished
 * task's output and starts the stage again for the failed rank alone; that rank's first exchange
 * would then wait for ranks that never come (Spark's own wait lasts a year). Failing the attempt
 * makes Spark drop every rank's output and run all of them again. The runner's ranks and the Python
 * ranks ({@code dev.stoker.spark.python}) both make this check as they start.
 */
public final class RankLaunch {
  private RankLaunch() {}

  /** Throws unless every one of the stage's {@code worldSize} ranks was started in this attempt. */
  public static void requireEveryRank(BarrierTaskContext task, int worldSize) {
    String refusal =
        refusal(
            task.getTaskInfos().length, worldSize, task.partitionId(), task.stageAttemptNumber());
    if (refusal != null) {
      throw new RankFailedException(refusal, null);
    }
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
