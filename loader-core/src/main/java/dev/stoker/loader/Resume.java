package dev.stoker.loader;

import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.loader.state.Segment;
import java.util.ArrayList;
import java.util.List;

/** A loader's states: the checks before it starts from one, and the one it stands at. */
final class Resume {
  private Resume() {}

  /**
   * Checks that {@code state} was taken in this loader's order, on this input ({@code input}; null
   * for a stream, whose owner checks its input).
   *
   * @throws IllegalArgumentException naming the option that differs
   * @throws dev.stoker.loader.state.InputChangedException naming what changed in the input, unless
   *     {@code acceptChangedInput}
   */
  static void check(
      LoaderState state,
      LoaderOptions options,
      InputFingerprint input,
      boolean acceptChangedInput) {
    if (state.shuffle() != options.shuffle()) {
      throw new IllegalArgumentException(
          String.format(
              "resumeFrom: the state was taken with "
                  + "%s=%s, this loader has %s=%s (expected: the same order; set %s=%s)",
              OptionNames.SHUFFLE,
              state.shuffle(),
              OptionNames.SHUFFLE,
              options.shuffle(),
              OptionNames.SHUFFLE,
              state.shuffle()));
    }
    if (state.shuffle() && state.seed() != options.seed()) {
      throw new IllegalArgumentException(
          String.format(
              "resumeFrom: the state was taken with "
                  + "%s=%d, this loader has %s=%d (expected: the same order; set %s=%d)",
              OptionNames.SEED,
              state.seed(),
              OptionNames.SEED,
              options.seed(),
              OptionNames.SEED,
              state.seed()));
    }
    if (!acceptChangedInput && input != null) {
      state.input().check(input);
    }
  }

  /**
   * Checks that an indexed loader's {@code state} could have been taken over {@code rows} rows: an
   * indexed order's state (no shuffle window, its order the epoch's own), and no segment consuming
   * more rows per rank than the epoch's rest still held on its ranks. A state of this input passes;
   * a hand-made or corrupted one that does not would yield a wrong or empty epoch.
   *
   * @throws IllegalArgumentException naming the field, its value, the bound and the remedy
   */
  static void checkIndexed(LoaderState state, long rows) {
    if (state.windowRows() != 0) {
      throw new IllegalArgumentException(
          "resumeFrom: the state is a stream's (windowRows="
              + state.windowRows()
              + "), not an indexed loader's (expected: a state this loader's "
              + "state() took; resume a format(\"stoker\") read or a StokerSpark run with its own)");
    }
    if (state.orderEpoch() != state.epoch()) {
      throw new IllegalArgumentException(
          "resumeFrom: orderEpoch "
              + state.orderEpoch()
              + " differs from epoch "
              + state.epoch()
              + " (expected: the same, as in every state "
              + "an indexed loader takes; the state is not one of this loader's)");
    }
    long left = rows;
    List<Segment> segments = state.segments();
    for (int i = 0; i < segments.size(); i++) {
      Segment segment = segments.get(i);
      long most = mostRowsPerRank(left, segment.worldSize(), state.batchSize(), state.dropLast());
      if (segment.rows() > most) {
        throw new IllegalArgumentException(
            String.format(
                "resumeFrom: segment %d of %d claims "
                    + "%d row(s) consumed per rank on %d rank(s), but epoch %d of %d rows had %d left "
                    + "there, at most %d per rank in batches of %d (expected: a state this input made; "
                    + "the state is not of this input)",
                i + 1,
                segments.size(),
                segment.rows(),
                segment.worldSize(),
                state.epoch(),
                rows,
                left,
                most,
                state.batchSize()));
      }
      left -= Math.min(left, segment.allRanks());
    }
  }

  /** Rows one of {@code worldSize} ranks hands out of {@code left}, whole batches counted. */
  private static long mostRowsPerRank(long left, int worldSize, int batchSize, boolean dropLast) {
    long share = dropLast ? left / worldSize : (left + worldSize - 1) / worldSize;
    long batches = dropLast ? share / batchSize : (share + batchSize - 1) / batchSize;
    return batches * batchSize;
  }

  /**
   * The state of an indexed loader at {@code position}: the rows its resumed epoch started at (if
   * any), then its batches on {@code placement}'s ranks; a resumed epoch with nothing left is the
   * next epoch's start.
   */
  static LoaderState state(
      LoaderOptions options,
      Placement placement,
      InputFingerprint input,
      LoaderSource source,
      DataLoader.Position position) {
    int epoch = position.epoch();
    int batches = position.batches();
    long start = source.startRow(epoch);
    if (batches == 0 && start > 0 && source.batchCount(epoch) == 0) {
      epoch++; // a resumed epoch with nothing left on any rank
      start = 0;
    }
    List<Segment> segments = new ArrayList<>();
    if (start > 0) {
      segments.add(new Segment(1, start)); // for an indexed order, only their sum matters
    }
    segments.add(new Segment(placement.worldSize(), (long) batches * options.batchSize()));
    return new LoaderState(
        options.seed(),
        options.shuffle(),
        epoch,
        epoch,
        options.batchSize(),
        options.dropLast(),
        0,
        segments,
        input);
  }
}
