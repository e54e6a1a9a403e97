package dev.stoker.loader;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/** Reads {@link LoaderOptions} from string values, naming the option in every error. */
final class OptionParser {
  private OptionParser() {}

  static LoaderOptions parse(Map<String, String> values) {
    LoaderOptions.Builder b = LoaderOptions.builder();
    for (Map.Entry<String, String> entry : values.entrySet()) {
      String name = canonical(entry.getKey());
      String value = entry.getValue() == null ? "" : entry.getValue().trim();
      apply(b, name, value);
    }
    return b.build();
  }

  /** The option's canonical name; matching ignores case, as Spark's options do. */
  private static String canonical(String key) {
    for (String name : LoaderOptions.NAMES) {
      if (name.equalsIgnoreCase(key)) {
        return name;
      }
    }
    throw new IllegalArgumentException("option: '" + key + "' (expected one of: "
        + String.join(", ", LoaderOptions.NAMES) + ")");
  }

  private static void apply(LoaderOptions.Builder b, String name, String value) {
    switch (name) {
      case LoaderOptions.BATCH_SIZE -> b.batchSize(intValue(name, value));
      case LoaderOptions.SHUFFLE -> b.shuffle(booleanValue(name, value));
      case LoaderOptions.SEED -> b.seed(longValue(name, value));
      case LoaderOptions.NUM_WORKERS -> b.numWorkers(intValue(name, value));
      case LoaderOptions.PIN_MEMORY -> b.pinMemory(booleanValue(name, value));
      case LoaderOptions.PREFETCH_FACTOR -> b.prefetchFactor(intValue(name, value));
      case LoaderOptions.PERSISTENT_WORKERS -> b.persistentWorkers(booleanValue(name, value));
      case LoaderOptions.DROP_LAST -> b.dropLast(booleanValue(name, value));
      case LoaderOptions.TIMEOUT -> b.timeout(duration(name, value));
      case LoaderOptions.ON_BAD_SAMPLE -> b.onBadSample(OnBadSample.parse(value));
      case LoaderOptions.MAX_HOST_BYTES -> b.maxHostBytes(bytes(name, value));
      case LoaderOptions.TRANSFER_DEPTH -> b.transferDepth(intValue(name, value));
      case LoaderOptions.NAME -> b.name(value);
      default -> throw new IllegalStateException("option without a parser: " + name);
    }
  }

  static int intValue(String name, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": '" + value + "' (expected: a whole number)");
    }
  }

  static long longValue(String name, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": '" + value + "' (expected: a whole number)");
    }
  }

  static boolean booleanValue(String name, String value) {
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    if (value.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(name + ": '" + value + "' (expected: true or false)");
  }

  /** Milliseconds as a plain number, or with a unit: {@code 500ms}, {@code 30s}, {@code 2m}. */
  static Duration duration(String name, String value) {
    String text = value.toLowerCase(Locale.ROOT);
    try {
      if (text.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2).trim()));
      } else if (text.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1).trim()));
      } else if (text.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1).trim()));
      }
      return Duration.ofMillis(Long.parseLong(text));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": '" + value
          + "' (expected: milliseconds, or a number with ms, s or m, e.g. 30s)");
    }
  }

  /** Bytes as a plain number, or with a binary unit: {@code 512k}, {@code 256m}, {@code 4g}. */
  static long bytes(String name, String value) {
    String text = value.toLowerCase(Locale.ROOT).replace("ib", "").replace("b", "");
    long unit = 1;
    if (text.endsWith("k")) {
      unit = 1L << 10;
    } else if (text.endsWith("m")) {
      unit = 1L << 20;
    } else if (text.endsWith("g")) {
      unit = 1L << 30;
    }
    String digits = unit == 1 ? text : text.substring(0, text.length() - 1);
    try {
      return Math.multiplyExact(Long.parseLong(digits.trim()), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(name + ": '" + value
          + "' (expected: bytes, or a number with k, m or g, e.g. 512m)");
    }
  }
}
