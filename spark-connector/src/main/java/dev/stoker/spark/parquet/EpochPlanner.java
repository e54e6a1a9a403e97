package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * Plans any epoch of a read on the ranks themselves: the read's row groups (their places in the
 * files, not their columns' figures) and the options that cut them, so that each rank reads, in
 * each epoch, the share of the whole input that {@link RankPlanner#plan} (or, for a {@link
 * GlobalBatch}, {@link RankPlanner#global}) gives it in that epoch's order, exactly as the driver
 * would plan it, without asking the driver. Sent to every rank once.
 */
public final class EpochPlanner implements Serializable {
  private static final long serialVersionUID = 1L;

  private final List<RankPlanner.Group> groups;
  private final int worldSize;
  private final int batchSize;
  private final boolean dropLast;
  private final boolean shuffle;
  private final long seed;
  private final String input;
  private final int windowRows;

  /** The global order of {@code globalBatchSize}, or null: the ranks' shares of each epoch. */
  private final GlobalBatch global;

  /** The footers the driver read of files on remote storage, by path; ranks need not ask again. */
  private final Map<String, FileFooter> footers;

  private transient int plannedEpoch = -1;
  private transient ReadPlan planned;

  EpochPlanner(
      List<RankPlanner.Group> groups,
      int worldSize,
      int batchSize,
      boolean dropLast,
      boolean shuffle,
      long seed,
      String input,
      int windowRows,
      GlobalBatch global,
      Map<String, FileFooter> footers) {
    this.groups = groups.stream().map(RankPlanner.Group::placeOnly).toList();
    this.worldSize = worldSize;
    this.batchSize = batchSize;
    this.dropLast = dropLast;
    this.shuffle = shuffle;
    this.seed = seed;
    this.input = input;
    this.windowRows = windowRows;
    this.global = global;
    this.footers = Map.copyOf(footers);
  }

  /** Rank {@code rank}'s rows in epoch {@code epoch}, planned in that epoch's order. */
  public synchronized RankRuns runs(int rank, int epoch) {
    if (rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException(
          "rank: " + rank + " (expected: 0 <= rank < worldSize " + worldSize + ")");
    }
    return plan(epoch).rank(rank);
  }

  /** Every rank's rows in epoch {@code epoch}. */
  public synchronized ReadPlan plan(int epoch) {
    if (epoch != plannedEpoch || planned == null) {
      ReadPlan plan =
          global != null
              ? RankPlanner.global(
                  groups, global, worldSize, shuffle, seed, epoch, input, windowRows)
              : RankPlanner.plan(
                  groups, worldSize, batchSize, dropLast, shuffle, seed, epoch, input, windowRows);
      planned = footers.isEmpty() ? plan : plan.withFooters(footers);
      plannedEpoch = epoch;
    }
    return planned;
  }

  public int worldSize() {
    return worldSize;
  }
}
