package dev.stoker.spark.options;

import dev.stoker.loader.option.StokerOption;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * One option of the connector's table: the typed option and who reads it.
 *
 * @param option its name, values, rule, default and documentation
 * @param layers who reads it
 */
public record OptionSpec(StokerOption<?> option, Set<OptionLayer> layers) {
  public OptionSpec {
    layers = Collections.unmodifiableSet(EnumSet.copyOf(layers));
  }

  /** As in {@code .option(name, value)}, e.g. {@code batchSize}; a family ends with a dot. */
  public String name() {
    return option.name();
  }

  /** The values it takes, e.g. {@code int > 0}, {@code auto|disk|none}. */
  public String type() {
    return option.values();
  }

  /** The value when none is given, as text (or what stands in for one). */
  public String defaultValue() {
    return option.defaultText();
  }

  /** One line on what it does. */
  public String doc() {
    return option.doc();
  }

  /** Whether this names a family of options, such as {@code shape.<column>}. */
  public boolean isPrefix() {
    return option.isPrefix();
  }

  /** Whether {@code key} is this option (or one of its family), ignoring case. */
  public boolean matches(String key) {
    return option.matches(key);
  }
}
