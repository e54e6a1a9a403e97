package dev.stoker.tools.gpucheck;

import java.util.List;

/**
 * How much the check does: its correctness cases, bandwidth epochs, the overlap workload and
 * settings, and its time budgets. {@link #standard()} is what {@code gpu-check.sh} runs.
 *
 * @param bandwidthEpochs epochs measured (after one to warm up) of {@code bandwidthBatches} batches
 *     of 16 MiB each
 * @param javaBudgetSeconds no overlap measurement starts after this
 * @param totalBudgetSeconds the PyTorch peer gets what is left of this (at least 30 s)
 */
public record Plan(
    List<Correctness.Case> cases,
    long toleranceBytes,
    int bandwidthEpochs,
    int bandwidthBatches,
    int overlapSamples,
    int batchSize,
    double[] stepsMs,
    List<Overlap.Config> configs,
    int warmup,
    int measured,
    long javaBudgetSeconds,
    long totalBudgetSeconds) {

  /**
   * The run of {@code gpu-check.sh}: sized for a minute or two on a GPU machine, the peer included;
   * the budgets keep it under five minutes whatever the machine.
   */
  public static Plan standard() {
    return new Plan(
        Correctness.standardCases(),
        2L << 20,
        6,
        8,
        20_000,
        64,
        new double[] {2.0, 0.5},
        Overlap.standardConfigs(),
        20,
        200,
        150,
        300);
  }
}
