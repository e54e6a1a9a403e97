package dev.stoker.spark.options;

import dev.stoker.loader.option.StokerOption;
import dev.stoker.loader.util.ClosestName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * Finds the options of {@link SparkOptionTable} by name, and the session settings that stand in for
 * options not given: {@code spark.conf.set("spark.stoker.batchSize", "64")} is the {@code
 * batchSize} of every read and run of the session that does not give its own. A {@code
 * spark.stoker.*} setting that names no option is an error with the closest name. The values
 * themselves are parsed, strictly, by the table's options as their readers ({@code LoaderOptions},
 * the DataSource's and the runner's options) ask for them.
 */
public final class OptionRegistry {
  /** The prefix of the session settings that stand in for options. */
  public static final String SESSION_PREFIX = "spark.stoker.";

  /** The Spark setting of {@code option}: {@code spark.stoker.<name>}. */
  public static String setting(StokerOption<?> option) {
    return SESSION_PREFIX + option.name();
  }

  private OptionRegistry() {}

  /** Every option, loader knobs first. */
  public static List<OptionSpec> all() {
    return SparkOptionTable.ALL;
  }

  /** The option {@code key} names (or whose family it belongs to), ignoring case. */
  public static Optional<OptionSpec> find(String key) {
    for (OptionSpec spec : SparkOptionTable.ALL) {
      if (spec.matches(key)) {
        return Optional.of(spec);
      }
    }
    return Optional.empty();
  }

  /**
   * The session's {@code spark.stoker.*} settings that a reader of {@code layers} takes, by option
   * name; settings of other layers are left out.
   *
   * @throws IllegalArgumentException for a {@code spark.stoker.*} setting that names no option
   */
  public static Map<String, String> sessionSettings(
      Map<String, String> sessionConf, Set<OptionLayer> layers) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : sessionConf.entrySet()) {
      String key = entry.getKey();
      if (!key.regionMatches(true, 0, SESSION_PREFIX, 0, SESSION_PREFIX.length())) {
        continue;
      }
      String name = key.substring(SESSION_PREFIX.length());
      OptionSpec spec = find(name).orElseThrow(() -> unknown(key, name));
      if (spec.layers().stream().anyMatch(layers::contains)) {
        settings.put(name, entry.getValue());
      }
    }
    return settings;
  }

  /**
   * {@code given} (the options a read or run was given) over the session's settings for {@code
   * layers}: a setting stands in for an option only where none of that name (in any case) was
   * given.
   *
   * @throws IllegalArgumentException for a {@code spark.stoker.*} setting that names no option
   */
  public static Map<String, String> resolve(
      Map<String, String> given, Map<String, String> sessionConf, Set<OptionLayer> layers) {
    Map<String, String> resolved = new LinkedHashMap<>();
    sessionSettings(sessionConf, layers)
        .forEach(
            (name, value) -> {
              if (given.keySet().stream().noneMatch(name::equalsIgnoreCase)) {
                resolved.put(name, value);
              }
            });
    resolved.putAll(given);
    return resolved;
  }

  /**
   * The {@code spark.stoker.*} settings of {@code session}: its Spark configuration's, then its
   * runtime configuration's, which win.
   */
  public static Map<String, String> stokerSettings(SparkSession session) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (Tuple2<String, String> entry :
        session.sparkContext().getConf().getAllWithPrefix(SESSION_PREFIX)) {
      settings.put(SESSION_PREFIX + entry._1(), entry._2());
    }
    scala.collection.Iterator<Tuple2<String, String>> runtime = session.conf().getAll().iterator();
    while (runtime.hasNext()) {
      Tuple2<String, String> entry = runtime.next();
      if (entry._1().regionMatches(true, 0, SESSION_PREFIX, 0, SESSION_PREFIX.length())) {
        settings.put(entry._1(), entry._2());
      }
    }
    return settings;
  }

  private static IllegalArgumentException unknown(String key, String name) {
    List<String> names = new ArrayList<>();
    for (OptionSpec spec : SparkOptionTable.ALL) {
      names.add(spec.name());
    }
    String closest = ClosestName.of(name, names);
    return new IllegalArgumentException(
        key
            + ": a session setting that names no option of "
            + "Stoker's (expected: "
            + (closest != null
                ? "did you mean '" + SESSION_PREFIX + closest + "'?"
                : SESSION_PREFIX + "<option>, one of " + String.join(", ", names))
            + ")");
  }
}
