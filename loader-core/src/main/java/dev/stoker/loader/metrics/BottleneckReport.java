package dev.stoker.loader.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Reads an epoch's metrics as the classic checklist for a training input pipeline: does the
 * consumer wait (pipeline-bound), is one loading thread saturated while others idle, is the memory
 * budget throttling the workers, or is data ready before it is asked for (compute-bound). Every
 * finding quotes the numbers behind it and the knob to turn.
 */
public final class BottleneckReport {
  /** Consumer waiting at least this share of its time makes the pipeline the bottleneck. */
  static final double PIPELINE_WAIT = 0.25;

  /** Consumer waiting less than this share of its time makes the consumer the bottleneck. */
  static final double COMPUTE_WAIT = 0.05;

  static final double SATURATED = 0.85;
  static final double IDLE = 0.5;
  static final double SLOT_WAIT = 0.10;

  /** One verdict with its explanation. */
  public record Finding(Verdict verdict, String explanation) {
    @Override
    public String toString() {
      return verdict.label() + ": " + explanation;
    }
  }

  private final EpochMetrics metrics;
  private final List<Finding> findings;

  private BottleneckReport(EpochMetrics metrics, List<Finding> findings) {
    this.metrics = metrics;
    this.findings = List.copyOf(findings);
  }

  /** The report for {@code metrics}, on a machine with {@code cores} cores for the workers. */
  public static BottleneckReport of(EpochMetrics metrics, int cores) {
    List<Finding> findings = new ArrayList<>();
    memoryBudget(metrics, findings);
    oneBusyWorker(metrics, cores, findings);
    consumerWaits(metrics, cores, findings);
    if (findings.isEmpty()) {
      findings.add(
          new Finding(
              Verdict.BALANCED,
              String.format(
                  Locale.ROOT,
                  "the consumer waited %.0f%% of its time; neither side holds the other up much",
                  metrics.waitFraction() * 100)));
    }
    findings.sort(Comparator.comparing(Finding::verdict));
    return new BottleneckReport(metrics, findings);
  }

  /** The report for {@code metrics} on this machine. */
  public static BottleneckReport of(EpochMetrics metrics) {
    return of(metrics, Runtime.getRuntime().availableProcessors());
  }

  /** Slots running short matters only when the consumer waits for data meanwhile. */
  private static void memoryBudget(EpochMetrics m, List<Finding> findings) {
    if (m.slotWaitFraction() >= SLOT_WAIT && m.waitFraction() >= COMPUTE_WAIT) {
      findings.add(
          new Finding(
              Verdict.MEMORY_BOUND,
              String.format(
                  Locale.ROOT,
                  "the next batch waited for a free slot %.0f%% of the time; the memory budget allows %d slots "
                      + "where %d batches may be in flight plus the one being used; raise maxHostBytes or "
                      + "lower prefetchFactor",
                  m.slotWaitFraction() * 100,
                  m.slotLimit(),
                  m.prefetchWindow())));
    }
  }

  private static void oneBusyWorker(EpochMetrics m, int cores, List<Finding> findings) {
    double[] busy = m.workerBusy();
    int busiest = 0;
    double others = 0;
    for (int i = 0; i < busy.length; i++) {
      if (busy[i] > busy[busiest]) {
        busiest = i;
      }
    }
    for (int i = 0; i < busy.length; i++) {
      others += i == busiest ? 0 : busy[i];
    }
    double meanOthers = busy.length > 1 ? others / (busy.length - 1) : 0;
    boolean starving = m.waitFraction() >= PIPELINE_WAIT;
    if (busy[busiest] < SATURATED || !starving) {
      return;
    }
    if (m.numWorkers() <= 1 && cores > 1) {
      String who = m.numWorkers() == 0 ? "the caller's thread (numWorkers=0)" : "the only worker";
      findings.add(
          new Finding(
              Verdict.ONE_WORKER_SATURATED,
              String.format(
                  Locale.ROOT,
                  "all loading runs on %s, busy %.0f%% of the time, while %d cores are there; "
                      + "raise numWorkers",
                  who,
                  busy[busiest] * 100,
                  cores)));
    } else if (busy.length > 1 && meanOthers < IDLE) {
      findings.add(
          new Finding(
              Verdict.ONE_WORKER_SATURATED,
              String.format(
                  Locale.ROOT,
                  "worker %d is busy %.0f%% of the time while the others average %.0f%%: some batches "
                      + "cost far more than others (look at the samples they hold)",
                  busiest,
                  busy[busiest] * 100,
                  meanOthers * 100)));
    }
  }

  /** ", of which the transform took N ms" when the epoch has a transform, else nothing. */
  private static String transformShare(EpochMetrics m) {
    return m.transformNanos() == 0
        ? ""
        : String.format(
            Locale.ROOT,
            ", %.2f of them in the per-sample transform (decode, augment)",
            m.meanTransformMillis());
  }

  private static void consumerWaits(EpochMetrics m, int cores, List<Finding> findings) {
    double wait = m.waitFraction();
    if (wait >= PIPELINE_WAIT) {
      String advice =
          m.numWorkers() >= cores
              ? "the workers already match the cores; make samples cheaper to produce or add cores"
              : "raise numWorkers (now "
                  + m.numWorkers()
                  + ", cores "
                  + cores
                  + ") or prefetchFactor";
      findings.add(
          new Finding(
              Verdict.PIPELINE_BOUND,
              String.format(
                  Locale.ROOT,
                  "the consumer waited %.0f%% of its time for data (%.2f ms per batch to fill%s); %s",
                  wait * 100,
                  m.meanFillMillis(),
                  transformShare(m),
                  advice)));
    } else if (wait < COMPUTE_WAIT && m.batches() > 0) {
      findings.add(
          new Finding(
              Verdict.COMPUTE_BOUND,
              String.format(
                  Locale.ROOT,
                  "the consumer waited only %.1f%% of its time and %.1f batches were ready on average: "
                      + "data is ready before it is asked for; the loader is not the bottleneck",
                  wait * 100,
                  m.meanReadyBatches())));
    }
  }

  /** The most specific verdict. */
  public Verdict verdict() {
    return findings.get(0).verdict();
  }

  public List<Finding> findings() {
    return findings;
  }

  public EpochMetrics metrics() {
    return metrics;
  }

  /** One line: the verdict and its explanation. */
  public String summary() {
    return findings.get(0).toString();
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(metrics.toString());
    for (Finding finding : findings) {
      text.append(System.lineSeparator()).append("  ").append(finding);
    }
    return text.toString();
  }
}
