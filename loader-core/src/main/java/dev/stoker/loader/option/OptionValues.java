package dev.stoker.loader.option;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Strict parsers of option values from text; every error names the option and the text. Sizes and
 * durations are digits with an optional unit, an optional single space between; any other text, a
 * sign included, is an error, and so is a value too large for its type.
 */
public final class OptionValues {
  /** The largest duration: nanoseconds must fit in a long. */
  public static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE);

  public static final String MAX_DURATION_TEXT =
      "at most " + Long.MAX_VALUE + " ns, about 292 years";

  private static final Pattern WHOLE = Pattern.compile("[+-]?[0-9]+");
  private static final Pattern AMOUNT = Pattern.compile("([0-9]+) ?([a-zA-Z]*)");
  private static final Map<String, Long> SIZE_UNITS =
      Map.ofEntries(
          Map.entry("", 1L),
          Map.entry("b", 1L),
          Map.entry("k", 1L << 10),
          Map.entry("kb", 1L << 10),
          Map.entry("kib", 1L << 10),
          Map.entry("m", 1L << 20),
          Map.entry("mb", 1L << 20),
          Map.entry("mib", 1L << 20),
          Map.entry("g", 1L << 30),
          Map.entry("gb", 1L << 30),
          Map.entry("gib", 1L << 30),
          Map.entry("t", 1L << 40),
          Map.entry("tb", 1L << 40),
          Map.entry("tib", 1L << 40));
  private static final Map<String, Long> DURATION_UNITS =
      Map.of(
          "",
          1_000_000L,
          "ns",
          1L,
          "us",
          1_000L,
          "ms",
          1_000_000L,
          "s",
          1_000_000_000L,
          "m",
          60_000_000_000L,
          "min",
          60_000_000_000L,
          "h",
          3_600_000_000_000L);

  private OptionValues() {}

  /** A whole number in int range, optionally signed, as {@link Integer#parseInt} reads it. */
  public static int intValue(String name, String text) {
    return (int) wholeNumber(name, text, Integer.MIN_VALUE, Integer.MAX_VALUE);
  }

  /** A whole number in long range, optionally signed. */
  public static long longValue(String name, String text) {
    return wholeNumber(name, text, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  private static long wholeNumber(String name, String text, long low, long high) {
    if (!WHOLE.matcher(text).matches()) {
      throw new IllegalArgumentException(name + ": '" + text + "' (expected: a whole number)");
    }
    BigDecimal value = new BigDecimal(text);
    if (value.compareTo(BigDecimal.valueOf(low)) < 0
        || value.compareTo(BigDecimal.valueOf(high)) > 0) {
      throw new IllegalArgumentException(
          name + ": '" + text + "' (expected: a whole number from " + low + " to " + high + ")");
    }
    return value.longValueExact();
  }

  /** {@code true} or {@code false}, in any case. */
  public static boolean booleanValue(String name, String text) {
    if (text.equalsIgnoreCase("true")) {
      return true;
    }
    if (text.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(name + ": '" + text + "' (expected: true or false)");
  }

  /**
   * Bytes: digits with an optional binary unit, any case: {@code b}; {@code k}, {@code kb}, {@code
   * kib} (1024); the same for {@code m}, {@code g} and {@code t}. E.g. {@code 512m}, {@code 4 GiB}.
   */
  public static long bytes(String name, String text) {
    Matcher m = AMOUNT.matcher(text);
    Long unit = m.matches() ? SIZE_UNITS.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
    if (unit == null) {
      throw new IllegalArgumentException(
          name
              + ": '"
              + text
              + "' (expected: bytes, or digits with a binary unit k, m, g or t, e.g. 512m or 4GiB)");
    }
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          name + ": '" + text + "' (expected: at most " + Long.MAX_VALUE + " bytes)");
    }
  }

  /**
   * A duration: milliseconds as plain digits, or digits with a unit, any case: {@code ns}, {@code
   * us}, {@code ms}, {@code s}, {@code m} or {@code min}, {@code h}; e.g. {@code 30s}. At most
   * {@link #MAX_DURATION}, so that its nanoseconds fit in a long.
   */
  public static Duration duration(String name, String text) {
    Matcher m = AMOUNT.matcher(text);
    Long unit = m.matches() ? DURATION_UNITS.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
    if (unit == null) {
      throw new IllegalArgumentException(
          name
              + ": '"
              + text
              + "' (expected: milliseconds, "
              + "or digits with a unit ns, us, ms, s, m, min or h, e.g. 30s)");
    }
    try {
      return Duration.ofNanos(Math.multiplyExact(Long.parseLong(m.group(1)), unit));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          name + ": '" + text + "' (expected: " + MAX_DURATION_TEXT + ")");
    }
  }

  /**
   * One of {@code labels}, in any case and with surrounding whitespace; the label itself. An error
   * lists them: {@code cache: 'x' (expected: auto, disk or none)}.
   */
  public static String choice(String name, String text, List<String> labels) {
    for (String label : labels) {
      if (label.equalsIgnoreCase(text.strip())) {
        return label;
      }
    }
    String last = labels.get(labels.size() - 1);
    String listed =
        labels.size() == 1
            ? last
            : String.join(", ", labels.subList(0, labels.size() - 1)) + " or " + last;
    throw new IllegalArgumentException(name + ": '" + text + "' (expected: " + listed + ")");
  }

  /** Bytes in the largest binary unit that holds them exactly, as {@link #bytes} reads them. */
  public static String bytesText(long value) {
    String[] units = {"t", "g", "m", "k"};
    for (int i = 0; i < units.length; i++) {
      long unit = 1L << (10 * (units.length - i));
      if (value != 0 && value % unit == 0) {
        return value / unit + units[i];
      }
    }
    return Long.toString(value);
  }

  /**
   * A duration in the largest unit that holds it exactly ({@code 10m}, {@code 1s}, {@code 0}), as
   * {@link #duration} reads it back.
   */
  public static String shortText(Duration value) {
    long nanos = value.toNanos();
    String[] units = {"h", "m", "s", "ms", "us"};
    long[] sizes = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
    for (int i = 0; i < units.length; i++) {
      if (nanos != 0 && nanos % sizes[i] == 0) {
        return nanos / sizes[i] + units[i];
      }
    }
    return nanos == 0 ? "0" : nanos + "ns";
  }

  /** The text {@link #duration} reads back exactly: {@code 500ms}, or {@code 1500ns} below ms. */
  public static String durationText(Duration value) {
    return value.getNano() % 1_000_000 == 0 ? value.toMillis() + "ms" : value.toNanos() + "ns";
  }

  /** A duration for messages, never failing: {@code 5 ms}, {@code 1500 ns} or {@code 9.5 s}. */
  public static String describe(Duration value) {
    try {
      return value.getNano() % 1_000_000 == 0 ? value.toMillis() + " ms" : value.toNanos() + " ns";
    } catch (ArithmeticException tooLong) {
      return BigDecimal.valueOf(value.getSeconds())
              .add(BigDecimal.valueOf(value.getNano(), 9))
              .stripTrailingZeros()
              .toPlainString()
          + " s";
    }
  }
}
