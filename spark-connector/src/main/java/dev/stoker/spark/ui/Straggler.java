package dev.stoker.spark.ui;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rank that holds the others back, if one does: a rank clearly behind the leader, else the rank
 * that waits for data a clearly larger share of its step than the others (in synchronous training
 * every rank then waits for it in the all-reduce).
 *
 * @param rank the straggler, or -1 when none
 * @param reason why, with the numbers
 */
record Straggler(int rank, String reason) {
  /** A wait share under this is no stall worth naming (BottleneckReport's compute-bound line). */
  static final double NOTICEABLE = 0.05;

  static Straggler of(List<RankFigures> ranks) {
    if (ranks.size() < 2) {
      return new Straggler(-1, "one rank: none");
    }
    RankFigures leader = ranks.get(0);
    RankFigures last = ranks.get(0);
    RankFigures waits = ranks.get(0);
    for (RankFigures r : ranks) {
      leader = r.batches() > leader.batches() ? r : leader;
      last = r.batches() < last.batches() ? r : last;
      waits = r.waitShare() > waits.waitShare() ? r : waits;
    }
    double others = medianShare(ranks, waits.rank());
    // Ranks report at different moments: a gap within a tenth of the leader's count is noise.
    if (leader.batches() - last.batches() >= Math.max(2, leader.batches() / 10)
        && !last.finished()) {
      return new Straggler(
          last.rank(),
          String.format(
              Locale.ROOT,
              "rank %d is %d batches behind rank %d and waited %.0f%% of its step for data",
              last.rank(),
              leader.batches() - last.batches(),
              leader.rank(),
              last.waitShare() * 100));
    }
    if (waits.waitShare() >= NOTICEABLE && waits.waitShare() >= 2 * others) {
      return new Straggler(
          waits.rank(),
          String.format(
              Locale.ROOT,
              "rank %d waited %.0f%% of its step for data (%d ms), the others %.0f%% (median): "
                  + "the other ranks wait for it at every step",
              waits.rank(),
              waits.waitShare() * 100,
              waits.waitMillis(),
              others * 100));
    }
    return new Straggler(
        -1,
        String.format(
            Locale.ROOT,
            "none: the ranks wait alike for data " + "(at most %.0f%% of the step, rank %d)",
            waits.waitShare() * 100,
            waits.rank()));
  }

  private static double medianShare(List<RankFigures> ranks, int except) {
    List<Double> shares = new ArrayList<>();
    for (RankFigures r : ranks) {
      if (r.rank() != except) {
        shares.add(r.waitShare());
      }
    }
    shares.sort(null);
    int n = shares.size();
    return n % 2 == 1 ? shares.get(n / 2) : (shares.get(n / 2 - 1) + shares.get(n / 2)) / 2;
  }
}
