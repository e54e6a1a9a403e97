package dev.stoker.spark.run;

import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The driver's record of the states a run's ranks committed: the last state every rank committed
 * (or the one the run started from) is where a retried stage starts. Ranks commit at the same
 * steps, so their states are ordered alike by (epoch, rows consumed). Commits of an attempt older
 * than the newest that asked where to start are ignored: they come from tasks being killed.
 */
final class CommitLog {
  private final int worldSize;
  private final LoaderState base;
  private final Function<LoaderState, ReadPlan> planner;
  private final List<TreeMap<Long, LoaderState>> ranks = new ArrayList<>();
  private final Map<LoaderState, ReadPlan> plans = new java.util.HashMap<>();
  private LoaderState common;
  private int attempt;

  /**
   * @param base the state the run starts from, or null: the start of the ranks' first epoch
   * @param planner the resumed plan of the run's ranks from a state
   */
  CommitLog(int worldSize, LoaderState base, Function<LoaderState, ReadPlan> planner) {
    this.worldSize = worldSize;
    this.base = base;
    this.planner = planner;
    this.common = base;
    for (int r = 0; r < worldSize; r++) {
      ranks.add(new TreeMap<>());
    }
  }

  /** Where a state stands in the run: its epoch, then the rows of it consumed. */
  private static long key(LoaderState state) {
    return ((long) state.epoch() << 40) + state.consumedRows();
  }

  /** Records rank {@code rank}'s commit of {@code state} in stage attempt {@code stageAttempt}. */
  synchronized void commit(int rank, int stageAttempt, LoaderState state) {
    if (rank < 0 || rank >= worldSize) {
      throw new IllegalArgumentException(
          "rank: " + rank + " (expected: 0 <= rank < " + worldSize + ")");
    }
    if (stageAttempt < attempt) {
      return;
    }
    ranks.get(rank).put(key(state), state);
    for (Map.Entry<Long, LoaderState> entry : ranks.get(0).descendingMap().entrySet()) {
      if (common != null && entry.getKey() <= key(common)) {
        break;
      }
      boolean everyRank = true;
      for (TreeMap<Long, LoaderState> other : ranks) {
        everyRank &= other.containsKey(entry.getKey());
      }
      if (everyRank) {
        common = entry.getValue();
        for (TreeMap<Long, LoaderState> other : ranks) {
          other.headMap(entry.getKey()).clear();
        }
        break;
      }
    }
  }

  /** The last state every rank committed, or the one the run started from; null if neither. */
  synchronized LoaderState common() {
    return common;
  }

  /**
   * Where rank {@code rank} of stage attempt {@code stageAttempt} starts: the common state and the
   * rank's runs for the rest of its epoch, or null to start afresh.
   */
  synchronized Start start(int rank, int stageAttempt) {
    attempt = Math.max(attempt, stageAttempt);
    if (common == null) {
      return null;
    }
    ReadPlan plan = plans.computeIfAbsent(common, planner);
    return new Start(common, plan.rank(rank));
  }

  /** Where a rank starts: a state, and its runs for the rest of the state's epoch. */
  record Start(LoaderState state, RankRuns runs) {}

  /** The state the run started from, or null. */
  LoaderState base() {
    return base;
  }
}
