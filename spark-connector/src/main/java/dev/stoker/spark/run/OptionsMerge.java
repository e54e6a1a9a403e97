package dev.stoker.spark.run;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OptionNames;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The loader's options of a run over a {@code format("stoker")} read, which both sides may have
 * been given: one set of options, each knob from the side that gave it. A knob given on both sides
 * with different values is an error naming both.
 */
final class OptionsMerge {
  private static final LoaderOptions DEFAULTS = LoaderOptions.builder().build();

  private OptionsMerge() {}

  /**
   * The names of the knobs of {@code options} that differ from the defaults: what typed options say
   * was chosen.
   */
  static Set<String> chosen(LoaderOptions options) {
    Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    Map<String, Object> defaults = DEFAULTS.asMap();
    options
        .asMap()
        .forEach(
            (name, value) -> {
              if (!Objects.equals(value, defaults.get(name))) {
                names.add(name);
              }
            });
    return names;
  }

  /** The knobs among {@code keys} (string options as given), by the loader's own names. */
  static Set<String> named(Set<String> keys) {
    Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    for (String key : keys) {
      for (String name : OptionNames.LOADER) {
        if (name.equalsIgnoreCase(key)) {
          names.add(name);
        }
      }
    }
    return names;
  }

  /**
   * {@code run}'s options, with each knob that only {@code read} was given taken from {@code read}.
   *
   * @param runGiven the knobs the runner was given
   * @param readGiven the knobs the read was given
   * @throws IllegalArgumentException for a knob given on both sides with different values
   */
  static LoaderOptions merge(
      LoaderOptions run, Set<String> runGiven, LoaderOptions read, Set<String> readGiven) {
    Map<String, Object> runValues = run.asMap();
    Map<String, Object> readValues = read.asMap();
    Map<String, String> merged = new LinkedHashMap<>();
    runValues.forEach(
        (name, value) -> {
          if (value != null && (contains(runGiven, name) || OptionNames.NAME.equals(name))) {
            merged.put(name, text(value));
          }
        });
    for (String name : OptionNames.LOADER) {
      if (!contains(readGiven, name) || OptionNames.NAME.equals(name)) {
        continue;
      }
      Object fromRead = readValues.get(name);
      if (contains(runGiven, name) && !Objects.equals(fromRead, runValues.get(name))) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "%s: %s on the "
                    + "format(\"stoker\") read and %s on StokerSpark (expected: one value; give it on "
                    + "one side only, or the same on both)",
                name,
                text(fromRead),
                text(runValues.get(name))));
      }
      merged.put(name, text(fromRead));
    }
    return LoaderOptions.fromMap(merged);
  }

  /**
   * The number of ranks from {@code run} (null: not given) and the read's {@code read} if it was
   * given one.
   *
   * @throws IllegalArgumentException if both differ, or neither was given
   */
  static int worldSize(Integer run, int read, boolean readGiven) {
    if (run != null && readGiven && run != read) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "%s: %d on the "
                  + "format(\"stoker\") read and %d on StokerSpark (expected: one number of ranks; give "
                  + "it on one side only, or the same on both)",
              OptionNames.WORLD_SIZE,
              read,
              run));
    }
    if (run != null) {
      return run;
    }
    if (readGiven) {
      return read;
    }
    throw StokerRun.worldSizeMissing();
  }

  private static boolean contains(Set<String> names, String name) {
    for (String given : names) {
      if (given.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  private static String text(Object value) {
    return String.valueOf(value);
  }
}
