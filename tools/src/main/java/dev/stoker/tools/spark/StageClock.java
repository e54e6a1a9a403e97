package dev.stoker.tools.spark;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.storage.RDDInfo;

/**
 * Watches the stages of one run: adds up how long its stages took, from submission to completion,
 * apart from the barrier stage of the ranks (the stage holding the RDD named {@value #RANKS}, or
 * any barrier RDD), whose work the ranks time themselves; and keeps when that stage of the ranks
 * was submitted, for the time to the first batch.
 *
 * <p>Spark's stage times are the driver's wall clock ({@code System.currentTimeMillis()}, in the
 * scheduler). A rank that reports when it got its first batch must use the same clock; the
 * benchmarks run on {@code local[N]}, where the ranks are threads of the driver's JVM, so the two
 * readings are of one clock. Across machines they would carry the clocks' skew.
 */
final class StageClock extends SparkListener {
  static final String RANKS = "stoker ranks";

  private long nanos;
  private long ranksSubmitted = -1;

  @Override
  public synchronized void onStageCompleted(SparkListenerStageCompleted completed) {
    StageInfo stage = completed.stageInfo();
    if (stage.submissionTime().isEmpty()) {
      return;
    }
    long submitted = (Long) stage.submissionTime().get();
    if (isRanks(stage)) {
      ranksSubmitted = Math.max(ranksSubmitted, submitted); // a retried stage: its last attempt
      return;
    }
    if (stage.name() == null || stage.completionTime().isEmpty()) {
      return;
    }
    nanos += ((Long) stage.completionTime().get() - submitted) * 1_000_000;
  }

  static boolean isRanks(StageInfo stage) {
    for (Object rdd : rddInfos(stage)) {
      RDDInfo info = (RDDInfo) rdd;
      if (RANKS.equals(info.name()) || info.isBarrier()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The stage's RDDs. Its Scala type is {@code scala.collection.Seq} on Scala 2.12 and {@code
   * scala.collection.immutable.Seq} on 2.13; read through reflection and the {@code
   * scala.collection.Iterable} both extend, one build runs on both.
   */
  private static Iterable<Object> rddInfos(StageInfo stage) {
    Object seq;
    try {
      seq = StageInfo.class.getMethod("rddInfos").invoke(stage);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("StageInfo.rddInfos() failed: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "StageInfo.rddInfos() is not there: " + e + " (expected: a Spark 3.5 or 4 StageInfo)", e);
    }
    scala.collection.Iterator<?> it = ((scala.collection.Iterable<?>) seq).iterator();
    List<Object> list = new ArrayList<>();
    while (it.hasNext()) {
      list.add(it.next());
    }
    return list;
  }

  /** Seconds of every stage of the run apart from the ranks' stage. */
  synchronized double seconds() {
    return nanos / 1e9;
  }

  /**
   * Seconds from the submission of the ranks' stage to {@code firstBatchMillis}, the latest of the
   * ranks' first batches ({@code System.currentTimeMillis()} on each rank).
   *
   * @throws IllegalStateException if no stage of the ranks completed while this clock listened
   */
  synchronized double secondsToFirstBatch(long firstBatchMillis) {
    if (ranksSubmitted < 0) {
      throw new IllegalStateException(
          "no stage of the ranks was seen (expected: a completed "
              + "stage with the RDD '"
              + RANKS
              + "' or a barrier RDD; add this listener before the "
              + "run and wait for Spark's listener bus after it)");
    }
    return (firstBatchMillis - ranksSubmitted) / 1e3;
  }
}
