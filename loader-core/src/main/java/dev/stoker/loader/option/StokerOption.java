package dev.stoker.loader.option;

import java.util.Objects;

/**
 * One option, defined once: its name as written in {@code .option(name, value)} (names ignore
 * case), the kind of value it takes and the rule a value must keep, its default, and one line of
 * documentation for the reference page. Parsing its text and checking a typed value (a builder's
 * setter) go through the same rule, so that both give the same error: the option, the value and
 * what is expected. Options are compared by identity: each is a constant of a table.
 *
 * @param <T> the type of its values
 */
public final class StokerOption<T> {
  private final String name;
  private final ValueType<T> type;
  private final String values;
  private final Check<T> check;
  private final T defaultValue;
  private final String defaultText;
  private final String doc;

  private StokerOption(Builder<T> b) {
    this.name = b.name;
    this.type = b.type;
    this.values = Objects.requireNonNull(b.values, "values of " + b.name);
    this.check = b.check;
    this.defaultValue = b.defaultValue == null ? null : b.check.check(b.name, b.defaultValue);
    this.defaultText =
        b.defaultText != null
            ? b.defaultText
            : type.shortText()
                .apply(
                    Objects.requireNonNull(
                        b.defaultValue,
                        "defaultText of " + b.name + ", which has no default value"));
    this.doc = Objects.requireNonNull(b.doc, "doc of " + b.name);
  }

  /**
   * An option named {@code name} (a family of options when it ends with a dot, such as {@code
   * shape.}) whose values are of {@code type}.
   */
  public static <T> Builder<T> builder(String name, ValueType<T> type) {
    return new Builder<>(name, type);
  }

  public String name() {
    return name;
  }

  public ValueType<T> valueType() {
    return type;
  }

  /** The values it takes, for people: {@code int > 0}, {@code auto|disk|none}. */
  public String values() {
    return values;
  }

  /** Its value when none is given; null when there is none (see {@link #defaultText()}). */
  public T defaultValue() {
    return defaultValue;
  }

  /** Its default as the reference page shows it: a value, or what stands in for one. */
  public String defaultText() {
    return defaultText;
  }

  /** One line on what it does. */
  public String doc() {
    return doc;
  }

  /**
   * The value of {@code text} (stripped of surrounding whitespace by the caller), read and checked.
   *
   * @throws IllegalArgumentException naming the option, the text and what is expected
   */
  public T parse(String text) {
    return parse(name, text);
  }

  /**
   * As {@link #parse(String)}, for the member {@code key} of a family such as {@code shape.image}:
   * errors name the key.
   */
  public T parse(String key, String text) {
    return check.check(key, type.reader().read(key, text));
  }

  /**
   * {@code value} if it keeps this option's rule, as a builder takes it (a name stripped of
   * surrounding whitespace).
   *
   * @throws IllegalArgumentException naming the option, the value and what is expected
   */
  public T check(T value) {
    return check.check(name, value);
  }

  /** {@code value} as a map of options holds it: numbers and flags, else its text; null stays. */
  public Object plain(T value) {
    return value == null ? null : type.plain().apply(value);
  }

  /** Whether this names a family of options, such as {@code shape.<column>}. */
  public boolean isPrefix() {
    return name.endsWith(".");
  }

  /** Whether {@code key} is this option (or one of its family), ignoring case. */
  public boolean matches(String key) {
    return isPrefix()
        ? key.regionMatches(true, 0, name, 0, name.length()) && key.length() > name.length()
        : key.equalsIgnoreCase(name);
  }

  @Override
  public String toString() {
    return name;
  }

  /** The rule a value keeps; a value that breaks it is an error naming the option. */
  @FunctionalInterface
  public interface Check<T> {
    /**
     * {@code value}, or the form it is kept in (e.g. stripped).
     *
     * @throws IllegalArgumentException naming {@code name}, the value and what is expected
     */
    T check(String name, T value);

    /** Any value. */
    static <T> Check<T> any() {
      return (name, value) -> value;
    }

    /** Any value but null: null is a {@link NullPointerException} naming the option. */
    static <T> Check<T> nonNull() {
      return (name, value) -> Objects.requireNonNull(value, name);
    }

    /** A number above zero: {@code batchSize: 0 (expected: > 0)}. */
    static <N extends Number> Check<N> positive() {
      return (name, value) -> {
        if (value.longValue() <= 0) {
          throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
        return value;
      };
    }
  }

  /** Builds a {@link StokerOption}; values, doc and a default (or its text) are required. */
  public static final class Builder<T> {
    private final String name;
    private final ValueType<T> type;
    private String values;
    private Check<T> check = Check.any();
    private T defaultValue;
    private String defaultText;
    private String doc;

    private Builder(String name, ValueType<T> type) {
      this.name = Objects.requireNonNull(name, "name");
      this.type = Objects.requireNonNull(type, "type");
    }

    /** The values it takes, for people: {@code int > 0}. */
    public Builder<T> values(String text) {
      values = text;
      return this;
    }

    /** The rule a value keeps (default: any value). */
    public Builder<T> check(Check<T> rule) {
      check = Objects.requireNonNull(rule, "check");
      return this;
    }

    /** The value when none is given; it must keep the rule. */
    public Builder<T> defaultValue(T value) {
      defaultValue = value;
      return this;
    }

    /**
     * The default as the reference page shows it, when it is no value ({@code (generated)}) or its
     * value's short text would not say enough.
     */
    public Builder<T> defaultText(String text) {
      defaultText = text;
      return this;
    }

    /** One line on what it does. */
    public Builder<T> doc(String line) {
      doc = line;
      return this;
    }

    public StokerOption<T> build() {
      return new StokerOption<>(this);
    }
  }
}
