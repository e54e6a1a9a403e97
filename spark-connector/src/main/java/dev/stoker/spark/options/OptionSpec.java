package dev.stoker.spark.options;

import java.util.Set;

/**
 * One option: its name as written in {@code .option(name, value)} (names ignore case), the values
 * it takes, its default, and who reads it.
 *
 * @param name e.g. {@code batchSize}; a prefix ends with a dot ({@code shape.})
 * @param type the values it takes, e.g. {@code int > 0}, {@code auto|disk|none}
 * @param defaultValue the value when none is given, as text
 * @param layers who reads it
 */
public record OptionSpec(String name, String type, String defaultValue, Set<OptionLayer> layers) {
  public OptionSpec {
    layers = Set.copyOf(layers);
  }

  /** Whether this names a family of options, such as {@code shape.<column>}. */
  public boolean isPrefix() {
    return name.endsWith(".");
  }

  /** Whether {@code key} is this option (or one of its family), ignoring case. */
  public boolean matches(String key) {
    return isPrefix() ? key.regionMatches(true, 0, name, 0, name.length())
        && key.length() > name.length() : key.equalsIgnoreCase(name);
  }
}
