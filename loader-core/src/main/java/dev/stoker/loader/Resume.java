package dev.stoker.loader;

import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;

/** The checks a loader makes before it starts from a {@link LoaderState}. */
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
}
