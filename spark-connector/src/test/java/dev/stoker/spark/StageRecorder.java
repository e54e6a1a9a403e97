package dev.stoker.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;

/** Records the stages that complete while it listens: how a run used Spark. */
public final class StageRecorder extends SparkListener {
  private final List<StageInfo> stages = new ArrayList<>();

  @Override
  public synchronized void onStageCompleted(SparkListenerStageCompleted completed) {
    stages.add(completed.stageInfo());
  }

  synchronized List<StageInfo> stages() {
    return new ArrayList<>(stages);
  }

  /** Records read from shuffles over all stages. */
  synchronized long shuffleRecordsRead() {
    long records = 0;
    for (StageInfo stage : stages) {
      records += stage.taskMetrics().shuffleReadMetrics().recordsRead();
    }
    return records;
  }
}
