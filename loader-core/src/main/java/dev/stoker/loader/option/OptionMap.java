package dev.stoker.loader.option;

import dev.stoker.loader.util.ClosestName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * String options read by name ignoring case, as Spark's options are. The same name given twice in
 * different case is an error naming both spellings and values. A strict map refuses every name it
 * does not know, suggesting the closest known one; a lenient map ignores them. Values are stripped
 * of surrounding whitespace; a null value reads as empty.
 */
public final class OptionMap {
  /** Canonical name to stripped value, for the names read. */
  private final Map<String, String> values = new HashMap<>();

  private OptionMap(
      Map<String, String> given, List<String> read, List<String> known, boolean strict) {
    Map<String, String> byLowerCase = new LinkedHashMap<>();
    for (String name : known) {
      byLowerCase.putIfAbsent(lowerCase(name), name);
    }
    Map<String, String> spellings = new HashMap<>();
    for (String key : sortedKeys(given)) {
      String name = byLowerCase.get(lowerCase(key));
      if (name == null) {
        if (strict) {
          throw unknown(key, List.copyOf(byLowerCase.values()));
        }
        continue;
      }
      String before = spellings.putIfAbsent(name, key);
      if (before != null) {
        throw new IllegalArgumentException(
            String.format(
                "%s: given twice, as '%s' = '%s' and '%s' = '%s' (expected: once; option names "
                    + "ignore case)",
                name, before, given.get(before), key, given.get(key)));
      }
      if (read.contains(name)) {
        String value = given.get(key);
        values.put(name, value == null ? "" : value.strip());
      }
    }
  }

  /** Reads {@code read}; any name that is neither read nor {@code accepted} is an error. */
  public static OptionMap strict(
      Map<String, String> given, List<String> read, List<String> accepted) {
    List<String> known = new ArrayList<>(read);
    known.addAll(accepted);
    return new OptionMap(given, read, known, true);
  }

  /** Reads {@code read} and ignores every other name. */
  public static OptionMap lenient(Map<String, String> given, List<String> read) {
    return new OptionMap(given, read, read, false);
  }

  /** The stripped value of option {@code name} (canonical spelling), or null if not given. */
  public String get(String name) {
    return values.get(name);
  }

  private static List<String> sortedKeys(Map<String, String> given) {
    Objects.requireNonNull(given, "values");
    List<String> keys = new ArrayList<>(given.size());
    for (String key : given.keySet()) {
      if (key == null) {
        throw new IllegalArgumentException("option: null (expected: a name)");
      }
      keys.add(key);
    }
    keys.sort(null);
    return keys;
  }

  private static IllegalArgumentException unknown(String key, List<String> known) {
    String closest = ClosestName.of(key, known);
    return new IllegalArgumentException(
        closest != null
            ? "option: '" + key + "' (expected: a known option; did you mean '" + closest + "'?)"
            : "option: '" + key + "' (expected one of: " + String.join(", ", known) + ")");
  }

  private static String lowerCase(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
