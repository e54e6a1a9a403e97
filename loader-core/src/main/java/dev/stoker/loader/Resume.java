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
   * Checks that {@code state} was taken in this loader's order, on this input ({@code input};
   * null for a stream, whose owner checks its input).
   *
   * @throws IllegalArgumentException naming the option that differs
   * @throws dev.stoker.loader.state.InputChangedException naming what changed in the input,
   *     unless {@code acceptChangedInput}
   */
  static void check(LoaderState state, LoaderOptions options, InputFingerprint input,
      boolean acceptChangedInput) {
    if (state.shuffle() != options.shuffle()) {
      throw new IllegalArgumentException(String.format("resumeFrom: the state was taken with "
          + "%s=%s, this loader has %s=%s (expected: the same order; set %s=%s)",
          OptionNames.SHUFFLE, state.shuffle(), OptionNames.SHUFFLE, options.shuffle(),
          OptionNames.SHUFFLE, state.shuffle()));
    }
    if (state.shuffle() && state.seed() != options.seed()) {
      throw new IllegalArgumentException(String.format("resumeFrom: the state was taken with "
          + "%s=%d, this loader has %s=%d (expected: the same order; set %s=%d)",
          OptionNames.SEED, state.seed(), OptionNames.SEED, options.seed(), OptionNames.SEED,
          state.seed()));
    }
    if (!acceptChangedInput && input != null) {
      state.input().check(input);
    }
  }

  /**
   * The state of an indexed loader at {@code position}: the rows its resumed epoch started at
   * (if any), then its batches on {@code placement}'s ranks; a resumed epoch with nothing left is
   * the next epoch's start.
   */
  static LoaderState state(LoaderOptions options, Placement placement, InputFingerprint input,
      LoaderSource source, DataLoader.Position position) {
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
    return new LoaderState(options.seed(), options.shuffle(), epoch, epoch, options.batchSize(),
        options.dropLast(), 0, segments, input);
  }
}
