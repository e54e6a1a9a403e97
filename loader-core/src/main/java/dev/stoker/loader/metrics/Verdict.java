package dev.stoker.loader.metrics;

/** The answers of the input-pipeline checklist, most specific first. */
public enum Verdict {
  /** Workers waited for free slots: the host memory budget throttles the pipeline. */
  MEMORY_BOUND("memory-bound"),
  /** One loading thread is saturated while the rest idle: the classic "one busy core". */
  ONE_WORKER_SATURATED("one-worker-saturated"),
  /** The consumer waits for data: the pipeline is the bottleneck. */
  PIPELINE_BOUND("pipeline-bound"),
  /** Data is ready before it is asked for: the consumer is the bottleneck. */
  COMPUTE_BOUND("compute-bound"),
  /** Neither side waits much on the other. */
  BALANCED("balanced");

  private final String label;

  Verdict(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
