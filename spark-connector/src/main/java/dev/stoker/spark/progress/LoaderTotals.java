package dev.stoker.spark.progress;

import dev.stoker.loader.metrics.EpochMetrics;
import dev.stoker.loader.metrics.LoaderMetrics;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Totals over every epoch a loader ran, though its metrics keep only the recent epochs: each poll
 * adds the epochs that ended since the last one (a finished epoch's metrics are one object, kept
 * while listed), and counts the last listed epoch, which may still run, apart. Poll often enough
 * that fewer than {@link LoaderMetrics#EPOCHS_KEPT} epochs end in between.
 */
public final class LoaderTotals {
  private Set<EpochMetrics> counted = Collections.newSetFromMap(new IdentityHashMap<>());
  private int epochs;
  private long batches;
  private long samples;
  private long waitNanos;
  private long holdNanos;
  private long wallNanos;
  private long skipped;
  private EpochMetrics last;

  /** The last listed epoch while it may still run (not counted yet), else null. */
  private EpochMetrics running;

  /** Takes in {@code metrics}; with {@code ended} the last listed epoch has ended too. */
  public synchronized void poll(LoaderMetrics metrics, boolean ended) {
    List<EpochMetrics> listed = metrics.epochs();
    Set<EpochMetrics> still = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int i = 0; i < listed.size(); i++) {
      EpochMetrics epoch = listed.get(i);
      boolean finished = ended || i < listed.size() - 1;
      if (counted.contains(epoch)) {
        still.add(epoch);
      } else if (finished) {
        add(epoch);
        still.add(epoch);
      }
    }
    counted = still;
    last = listed.isEmpty() ? last : listed.get(listed.size() - 1);
    running = last != null && !counted.contains(last) ? last : null;
  }

  private void add(EpochMetrics epoch) {
    epochs++;
    batches += epoch.batches();
    samples += epoch.samples();
    waitNanos += epoch.consumerWaitNanos();
    holdNanos += epoch.consumerHoldNanos();
    wallNanos += epoch.wallNanos();
    skipped += epoch.skippedCount();
  }

  /** Samples left out as bad ({@code onBadSample=skip}), over every epoch. */
  public synchronized long skippedSamples() {
    return skipped + (running == null ? 0 : running.skippedCount());
  }

  public synchronized int epochs() {
    return epochs + (running == null ? 0 : 1);
  }

  public synchronized long batches() {
    return batches + (running == null ? 0 : running.batches());
  }

  public synchronized long waitMillis() {
    return (waitNanos + (running == null ? 0 : running.consumerWaitNanos())) / 1_000_000;
  }

  /** Time the consumer spent with its batches (its step), in ms. */
  public synchronized long holdMillis() {
    return (holdNanos + (running == null ? 0 : running.consumerHoldNanos())) / 1_000_000;
  }

  public synchronized long samples() {
    return samples + (running == null ? 0 : running.samples());
  }

  /** Samples per second over the epochs' wall time. */
  public synchronized double samplesPerSecond() {
    long wall = wallNanos + (running == null ? 0 : running.wallNanos());
    long all = samples + (running == null ? 0 : running.samples());
    return wall <= 0 ? 0 : all / (wall / 1e9);
  }

  /** The last epoch seen, or null before the first. */
  public synchronized EpochMetrics last() {
    return last;
  }
}
