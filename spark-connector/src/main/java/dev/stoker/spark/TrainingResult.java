package dev.stoker.spark;

import dev.stoker.loader.state.LoaderState;
import java.util.List;
import java.util.Optional;

/**
 * What a run returns: each rank's result, in rank order, and the load report.
 *
 * @param <R> what each rank's function returned
 */
public final class TrainingResult<R> {
  private final List<R> results;
  private final LoadReport report;
  private final LoaderState lastCommitted;

  public TrainingResult(List<R> results, LoadReport report) {
    this(results, report, null);
  }

  /** With the last state every rank committed (null: none). */
  public TrainingResult(List<R> results, LoadReport report, LoaderState lastCommitted) {
    this.results = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(results));
    this.report = report;
    this.lastCommitted = lastCommitted;
  }

  /**
   * The last state every rank committed ({@link RankContext#commit()}), or the one the run started
   * from if none committed since: store it with the checkpoint it was committed with, and start a
   * later run from it (option {@code resumeFrom} of the read), on any number of ranks.
   */
  public Optional<LoaderState> lastCommitted() {
    return Optional.ofNullable(lastCommitted);
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
