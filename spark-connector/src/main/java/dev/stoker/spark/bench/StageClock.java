package dev.stoker.spark.bench;

import dev.stoker.spark.run.balance.ScalaSeqs;
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

  private static boolean isRanks(StageInfo stage) {
    for (Object rdd : ScalaSeqs.call(stage, "rddInfos")) {
      if (RANKS.equals(((RDDInfo) rdd).name())) {
        return true;
      }
    }
    return false;
  }

  synchronized double seconds() {
    return nanos / 1e9;
  }
}
