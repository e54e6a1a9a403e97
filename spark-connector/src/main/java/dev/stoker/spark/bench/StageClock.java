package dev.stoker.spark.bench;

import java.lang.reflect.InvocationTargetException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.storage.RDDInfo;

/**
 * Adds up how long the stages of a run took, from submission to completion, apart from the
 * barrier stage of the ranks (RDD named {@value #RANKS}), whose work the ranks time themselves.
 */
final class StageClock extends SparkListener {
  static final String RANKS = "stoker ranks";

  private long nanos;

  @Override
  public synchronized void onStageCompleted(SparkListenerStageCompleted completed) {
    StageInfo stage = completed.stageInfo();
    if (stage.name() == null || stage.submissionTime().isEmpty()
        || stage.completionTime().isEmpty() || isRanks(stage)) {
      return;
    }
    long millis = (Long) stage.completionTime().get() - (Long) stage.submissionTime().get();
    nanos += millis * 1_000_000;
  }

  static boolean isRanks(StageInfo stage) {
    scala.collection.Iterator<?> rdds = rddInfos(stage).iterator();
    while (rdds.hasNext()) {
      if (RANKS.equals(((RDDInfo) rdds.next()).name())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The stage's RDDs, read through reflection and the {@code scala.collection.Iterable} that
   * both Scala versions' {@code Seq} extend: {@code rddInfos()} returns
   * {@code scala.collection.Seq} on Scala 2.12 and {@code scala.collection.immutable.Seq} on
   * 2.13, and a direct call would bind to one of them.
   */
  private static scala.collection.Iterable<?> rddInfos(StageInfo stage) {
    try {
      return (scala.collection.Iterable<?>) StageInfo.class.getMethod("rddInfos").invoke(stage);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("StageInfo.rddInfos() failed: " + e.getCause(),
          e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("StageInfo.rddInfos() is not there: " + e
          + " (expected: a Spark 3.5 or 4 class)", e);
    }
  }

  synchronized double seconds() {
    return nanos / 1e9;
  }
}
