package dev.stoker.spark.options;

import dev.stoker.loader.option.StokerOption;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Typed options out of the string options one reader was given, as Iceberg's {@code SparkReadConf}
 * reads its own: each option's value is the one given (its name in any case), else the session's
 * {@code spark.stoker.<name>} setting, else the table's default. The names themselves (unknown
 * ones, one given twice) are checked by the reader, which also reads the loader's knobs through
 * {@code LoaderOptions.fromMap}.
 */
public final class OptionReader {
  private final Map<String, String> values;

  private OptionReader(Map<String, String> values) {
    this.values = values;
  }

  /** The options in {@code values}, and the defaults for the others. */
  public static OptionReader of(Map<String, String> values) {
    return new OptionReader(Objects.requireNonNull(values, "values"));
  }

  /**
   * The options in {@code given}, then the session's settings of {@code layers} for those not
   * given, then the defaults (see {@link OptionRegistry#resolve}).
   *
   * @throws IllegalArgumentException for a {@code spark.stoker.*} setting that names no option
   */
  public static OptionReader resolve(
      Map<String, String> given, Map<String, String> sessionConf, Set<OptionLayer> layers) {
    return of(OptionRegistry.resolve(given, sessionConf, layers));
  }

  /** The options and the settings standing in for them, by name as given. */
  public Map<String, String> values() {
    return values;
  }

  /**
   * The text of {@code option}, stripped of surrounding whitespace ({@code ""} for null), or null
   * when it is not given; of several spellings, the last.
   */
  public String text(StokerOption<?> option) {
    return text(option.name());
  }

  /** As {@link #text(StokerOption)}, for a key that is no option of Stoker's, such as Spark's. */
  public String text(String name) {
    String text = null;
    for (Map.Entry<String, String> entry : values.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(name)) {
        text = entry.getValue() == null ? "" : entry.getValue().strip();
      }
    }
    return text;
  }

  /**
   * The value of {@code option}: its text read and checked, or its default when not given.
   *
   * @throws IllegalArgumentException naming the option, the text and what is expected
   */
  public <T> T get(StokerOption<T> option) {
    String text = text(option);
    return text == null ? option.defaultValue() : option.parse(text);
  }
}
