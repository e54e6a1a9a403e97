package dev.stoker.loader.option;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * The kind of value an option takes: how its text is read (strictly, every error naming the
 * option), how a value shows in a map of options ({@code LoaderOptions.asMap()}: numbers and flags
 * as themselves, anything else as text the reader reads back), and how a value shows on the
 * reference page (short: {@code 4g}, {@code 10m}).
 *
 * @param reader reads an option's text, already stripped of surrounding whitespace
 * @param plain a value as a map of options holds it
 * @param shortText a value as the reference page shows it; the reader reads it back
 */
public record ValueType<T>(
    Reader<T> reader, Function<T, Object> plain, Function<T, String> shortText) {

  /** A whole number in int range, optionally signed. */
  public static final ValueType<Integer> INT =
      new ValueType<>(OptionValues::intValue, v -> v, String::valueOf);

  /** A whole number in long range, optionally signed. */
  public static final ValueType<Long> LONG =
      new ValueType<>(OptionValues::longValue, v -> v, String::valueOf);

  /** {@code true} or {@code false}, any case. */
  public static final ValueType<Boolean> BOOLEAN =
      new ValueType<>(OptionValues::booleanValue, v -> v, String::valueOf);

  /** Bytes, with an optional binary unit ({@code 512m}, {@code 4GiB}). */
  public static final ValueType<Long> BYTES =
      new ValueType<>(OptionValues::bytes, v -> v, OptionValues::bytesText);

  /** A duration, milliseconds as plain digits or with a unit ({@code 30s}). */
  public static final ValueType<Duration> DURATION =
      new ValueType<>(OptionValues::duration, OptionValues::durationText, OptionValues::shortText);

  /** Any text, as given (stripped of surrounding whitespace). */
  public static final ValueType<String> TEXT =
      new ValueType<>((name, text) -> text, v -> v, v -> v);

  /** Reads an option's text into a value, naming the option in every error. */
  @FunctionalInterface
  public interface Reader<T> {
    /**
     * @throws IllegalArgumentException naming {@code name}, the text and what is expected
     */
    T read(String name, String text);
  }

  /** Values shown as the text {@code reader} reads back, such as an enum's label. */
  public static <T> ValueType<T> of(Reader<T> reader, Function<T, String> text) {
    return new ValueType<>(reader, text::apply, text);
  }

  /** One of {@code labels}, any case; the value is the label as listed. */
  public static ValueType<String> choice(String... labels) {
    List<String> listed = List.of(labels);
    return of((name, text) -> OptionValues.choice(name, text, listed), label -> label);
  }
}
