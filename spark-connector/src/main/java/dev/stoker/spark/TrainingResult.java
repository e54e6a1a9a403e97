package dev.stoker.spark;

import java.util.List;

/**
 * What a run returns: each rank's result, in rank order, and the load report.
 *
 * @param <R> what each rank's function returned
 */
public final class TrainingResult<R> {
  private final List<R> results;
  private final LoadReport report;

  public TrainingResult(List<R> results, LoadReport report) {
    this.results = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(results));
    this.report = report;
  }

  /** What each rank returned, index = rank (null where a rank returned null). */
  public List<R> results() {
    return results;
  }

  public R result(int rank) {
    return results.get(rank);
  }

  public LoadReport report() {
    return report;
  }

  @Override
  public String toString() {
    return "TrainingResult" + results + System.lineSeparator() + report;
  }
}
