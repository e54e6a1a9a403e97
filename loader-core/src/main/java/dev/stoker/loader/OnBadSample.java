package dev.stoker.loader;

import java.util.Locale;

/** What a loader does when a dataset fails to write a sample. */
public enum OnBadSample {
  /** The batch fails: the consumer gets a {@link dev.stoker.loader.BatchLoadException}. */
  FAIL,
  /**
   * The sample is left out: the batch keeps its shape with fewer valid rows ({@link Batch#size()}),
   * the rest zeroed, and the loader's metrics count and name what was skipped.
   */
  SKIP;

  public static OnBadSample parse(String text) {
    for (OnBadSample value : values()) {
      if (value.name().equalsIgnoreCase(text)) {
        return value;
      }
    }
    throw new IllegalArgumentException("onBadSample: '" + text + "' (expected: fail or skip)");
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
