package dev.stoker.loader.sampler;

/** Argument checks whose messages name the argument, its value and what is allowed. */
final class Checks {
  private Checks() {}

  static int nonNegative(String name, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
    }
    return value;
  }

  static int positive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
    }
    return value;
  }

  /**
   * Checks {@code 0 <= value < bound}, e.g. {@code batch: 7 (expected: 0 <= batch < batchCount =
   * 5)}.
   */
  static int index(String name, int value, String boundName, int bound) {
    if (value < 0 || value >= bound) {
      throw new IllegalArgumentException(
          name
              + ": "
              + value
              + " (expected: 0 <= "
              + name
              + " < "
              + boundName
              + " = "
              + bound
              + ")");
    }
    return value;
  }

  static <T> T notNull(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException(name + ": null (expected: non-null)");
    }
    return value;
  }
}
