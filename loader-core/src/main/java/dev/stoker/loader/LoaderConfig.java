package dev.stoker.loader;

import dev.stoker.loader.option.StokerOption;
import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The small immutable form of a loader's {@link LoaderOptions} and {@link Placement} that travels
 * to Spark's executors. It holds option name to string value, sorted by name, for only the options
 * that differ from their defaults: equal options and placements make equal configs, and an executor
 * parses back exactly what the driver built. Deserializing validates the values again.
 */
public final class LoaderConfig implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Map<String, Object> DEFAULTS = LoaderOptions.builder().build().asMap();

  private final TreeMap<String, String> values;
  private final transient LoaderOptions options;
  private final transient Placement placement;

  private LoaderConfig(LoaderOptions options, Placement placement) {
    this.options = options;
    this.placement = placement;
    this.values = new TreeMap<>();
    options
        .asMap()
        .forEach(
            (name, value) -> {
              if (value != null && !value.equals(DEFAULTS.get(name))) {
                values.put(name, String.valueOf(value));
              }
            });
    putUnlessDefault(LoaderOptionTable.RANK, placement.rank());
    putUnlessDefault(LoaderOptionTable.WORLD_SIZE, placement.worldSize());
  }

  private void putUnlessDefault(StokerOption<Integer> option, int value) {
    if (value != option.defaultValue()) {
      values.put(option.name(), Integer.toString(value));
    }
  }

  public static LoaderConfig of(LoaderOptions options, Placement placement) {
    return new LoaderConfig(
        Objects.requireNonNull(options, "options"), Objects.requireNonNull(placement, "placement"));
  }

  /**
   * Both layers from string values, with the errors of {@link LoaderOptions#fromMap(Map)} and
   * {@link Placement#fromMap(Map)}. Any other name, Spark's own ({@code path}) among them, is
   * refused; {@link #fromMap(Map, Collection)} names the keys a source accepts beside these.
   */
  public static LoaderConfig fromMap(Map<String, String> values) {
    return fromMap(values, List.of());
  }

  /** As {@link #fromMap(Map)}, also accepting and leaving out a Spark source's own option names. */
  public static LoaderConfig fromMap(Map<String, String> values, Collection<String> alsoAccepted) {
    return of(LoaderOptions.fromMap(values, alsoAccepted), Placement.fromMap(values));
  }

  public LoaderOptions options() {
    return options;
  }

  public Placement placement() {
    return placement;
  }

  /** The options that differ from their defaults, name to value, sorted by name. */
  public SortedMap<String, String> toMap() {
    return Collections.unmodifiableSortedMap(values);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LoaderConfig other && values.equals(other.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return "LoaderConfig" + values;
  }

  /** Parses the values read back, so that a config from a stream is as valid as one built here. */
  private Object readResolve() throws ObjectStreamException {
    try {
      return fromMap(values);
    } catch (IllegalArgumentException | NullPointerException e) {
      InvalidObjectException invalid =
          new InvalidObjectException("LoaderConfig: " + e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
  }
}
