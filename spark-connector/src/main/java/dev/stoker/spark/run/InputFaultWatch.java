package dev.stoker.spark.run;

import org.apache.spark.ExceptionFailure;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Watches the tasks of a run for an {@link InputFaultException}: the first one cancels the stage,
 * so that Spark does not retry what would fail alike, and is kept for the driver to throw.
 */
final class InputFaultWatch extends SparkListener {
  private final SparkContext spark;
  private volatile String fault;

  InputFaultWatch(SparkContext spark) {
    this.spark = spark;
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (fault == null
        && end.reason() instanceof ExceptionFailure failure
        && InputFaultException.class.getName().equals(failure.className())) {
      fault = failure.description();
      spark.cancelStage(end.stageId(), "stoker: " + fault);
    }
  }

  /** The first input fault a task met, or null. */
  String fault() {
    return fault;
  }
}
