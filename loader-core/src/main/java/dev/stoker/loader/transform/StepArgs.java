package dev.stoker.loader.transform;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arguments of one spec step, {@code name(a, b, key=value)}: positional and named, each read
 * once by its typed getter, whose errors name the step, the argument, the value and the expected
 * form. {@link #done} refuses any argument no getter read.
 */
final class StepArgs {
  private final String step;
  private final List<String> positional = new ArrayList<>();
  private final Map<String, String> named = new LinkedHashMap<>();
  private int positionalRead;

  private StepArgs(String step) {
    this.step = step;
  }

  /** Parses {@code text}, the inside of the parentheses ("" for none). */
  static StepArgs parse(String step, String text) {
    StepArgs args = new StepArgs(step);
    if (text.isBlank()) {
      return args;
    }
    for (String part : text.split(",", -1)) {
      String arg = part.strip();
      int eq = arg.indexOf('=');
      if (arg.isEmpty()) {
        throw args.error(
            "an empty argument in (" + text + ")", "values separated by single commas");
      }
      if (eq < 0) {
        if (!args.named.isEmpty()) {
          throw args.error(
              "positional argument '" + arg + "' after a named one", "positional arguments first");
        }
        args.positional.add(arg);
      } else {
        String key = arg.substring(0, eq).strip();
        String value = arg.substring(eq + 1).strip();
        if (key.isEmpty() || value.isEmpty() || args.named.put(key, value) != null) {
          throw args.error("argument '" + arg + "'", "key=value, each key once");
        }
      }
    }
    return args;
  }

  IllegalArgumentException error(String what, String expected) {
    return new IllegalArgumentException(
        "transforms: step " + step + ": " + what + " (expected: " + expected + ")");
  }

  /** The argument at {@code index} or named {@code key}, or null. */
  String raw(int index, String key) {
    String byName = named.remove(key);
    String byPosition = index >= 0 && index < positional.size() ? positional.get(index) : null;
    if (byPosition != null) {
      positionalRead = Math.max(positionalRead, index + 1);
      if (byName != null) {
        throw error(key + " given twice: " + byPosition + " and " + byName, "one value");
      }
      return byPosition;
    }
    return byName;
  }

  int positionalCount() {
    return positional.size();
  }

  int integer(int index, String key, int fallback, int min) {
    String text = raw(index, key);
    if (text == null) {
      return fallback;
    }
    try {
      int value = Integer.parseInt(text);
      if (value >= min) {
        return value;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw error(key + "=" + text, "an integer >= " + min);
  }

  double number(int index, String key, double fallback, double min, double max) {
    String text = raw(index, key);
    return text == null ? fallback : number(key, text, min, max);
  }

  private double number(String key, String text, double min, double max) {
    try {
      double value = Double.parseDouble(text);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw error(key + "=" + text, "a number from " + min + " to " + max);
  }

  /** A list written {@code a:b:c}; null when absent. */
  double[] numbers(int index, String key, int count, double min, double max) {
    String text = raw(index, key);
    if (text == null) {
      return null;
    }
    String[] parts = text.split(":", -1);
    if (count > 0 && parts.length != count) {
      throw error(key + "=" + text, count + " numbers separated by ':'");
    }
    double[] values = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        values[i] = Double.parseDouble(parts[i].strip());
      } catch (NumberFormatException e) {
        values[i] = Double.NaN;
      }
      if (!(values[i] >= min && values[i] <= max)) {
        throw error(key + "=" + text, "numbers from " + min + " to " + max + " separated by ':'");
      }
    }
    return values;
  }

  boolean bool(int index, String key, boolean fallback) {
    String text = raw(index, key);
    if (text == null) {
      return fallback;
    }
    return switch (text) {
      case "true", "on" -> true;
      case "false", "off" -> false;
      default -> throw error(key + "=" + text, "true or false");
    };
  }

  String word(int index, String key, String fallback, String... allowed) {
    String text = raw(index, key);
    if (text == null) {
      return fallback;
    }
    if (allowed.length == 0 || List.of(allowed).contains(text)) {
      return text;
    }
    throw error(key + "=" + text, "one of " + String.join(", ", allowed));
  }

  /** Refuses arguments no getter read. */
  void done(String form) {
    if (positional.size() > positionalRead || !named.isEmpty()) {
      List<String> extra = new ArrayList<>(positional.subList(positionalRead, positional.size()));
      named.forEach((k, v) -> extra.add(k + "=" + v));
      throw error("unknown or extra arguments " + extra, form);
    }
  }
}
