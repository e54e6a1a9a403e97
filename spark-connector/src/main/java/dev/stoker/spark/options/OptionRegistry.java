package dev.stoker.spark.options;

import static dev.stoker.spark.options.OptionLayer.LOADER;
import static dev.stoker.spark.options.OptionLayer.PLACEMENT;
import static dev.stoker.spark.options.OptionLayer.RUN;
import static dev.stoker.spark.options.OptionLayer.SOURCE;

import dev.stoker.loader.OptionNames;
import dev.stoker.loader.util.ClosestName;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * Every option of Stoker, with its type, default and layers, and the session settings that stand
 * in for options not given: {@code spark.conf.set("spark.stoker.batchSize", "64")} is the
 * {@code batchSize} of every read and run of the session that does not give its own. A
 * {@code spark.stoker.*} setting that names no option is an error with the closest name. The
 * values themselves are parsed, strictly, by their readers ({@code LoaderOptions}, the
 * DataSource's and the runner's options), whose errors name the option.
 */
public final class OptionRegistry {
  /** The prefix of the session settings that stand in for options. */
  public static final String SESSION_PREFIX = "spark.stoker.";

  private static final Set<OptionLayer> BOTH = EnumSet.of(SOURCE, RUN);

  private static final List<OptionSpec> ALL = List.of(
      loader(OptionNames.BATCH_SIZE, "int > 0", "1"),
      loader(OptionNames.SHUFFLE, "true|false", "false"),
      loader(OptionNames.SEED, "long", "0"),
      loader(OptionNames.NUM_WORKERS, "int 0..1024", "0"),
      loader(OptionNames.PIN_MEMORY, "true|false", "false"),
      loader(OptionNames.PREFETCH_FACTOR, "int > 0, with numWorkers > 0", "2"),
      loader(OptionNames.PERSISTENT_WORKERS, "true|false", "false"),
      loader(OptionNames.DROP_LAST, "true|false", "false"),
      loader(OptionNames.TIMEOUT, "duration (30s, 500ms), 0 = none", "0ms"),
      loader(OptionNames.ON_BAD_SAMPLE, "fail|skip", "fail"),
      loader(OptionNames.MAX_HOST_BYTES, "size (512m, 4g)", "4g"),
      loader(OptionNames.TRANSFER_DEPTH, "int > 0", "2"),
      loader(OptionNames.NAME, "text", "(generated)"),
      new OptionSpec(OptionNames.WORLD_SIZE, "int > 0", "(required)", EnumSet.of(PLACEMENT)),
      new OptionSpec("epoch", "int >= 0", "0", EnumSet.of(SOURCE)),
      new OptionSpec("shuffleBuffer", "int > 0 (rows)", "rows of 32 MiB, at most 8192",
          EnumSet.of(SOURCE)),
      new OptionSpec("shape.", "shape (3,32,32)", "(from the files)", EnumSet.of(SOURCE)),
      new OptionSpec("verifyChecksums", "true|false", "true", BOTH),
      new OptionSpec("resumeFrom", "a state (stoker1:...)", "(none: a fresh epoch)",
          EnumSet.of(SOURCE)),
      new OptionSpec("acceptChangedInput", "true|false", "false", EnumSet.of(SOURCE)),
      new OptionSpec("maxShardBytes", "size (512m, 64g)", "64g", EnumSet.of(RUN)),
      new OptionSpec("shardDir", "a local folder", "(Spark's local directories)",
          EnumSet.of(RUN)),
      new OptionSpec("cache", "auto|disk|none", "auto", EnumSet.of(RUN)),
      new OptionSpec("epochs", "int >= 0, 0 = not known", "0", EnumSet.of(RUN)),
      new OptionSpec("rebalance", "auto|always", "auto", EnumSet.of(RUN)),
      new OptionSpec("progressInterval", "duration > 0", "1s", EnumSet.of(RUN)),
      new OptionSpec("collectiveTimeout", "duration, 0 = forever", "10m", EnumSet.of(RUN)));

  private OptionRegistry() {}

  private static OptionSpec loader(String name, String type, String defaultValue) {
    return new OptionSpec(name, type, defaultValue, EnumSet.of(LOADER));
  }

  /** Every option, loader knobs first. */
  public static List<OptionSpec> all() {
    return ALL;
  }

  /** The option {@code key} names (or whose family it belongs to), ignoring case. */
  public static Optional<OptionSpec> find(String key) {
    for (OptionSpec spec : ALL) {
      if (spec.matches(key)) {
        return Optional.of(spec);
      }
    }
    return Optional.empty();
  }

  /**
   * The session's {@code spark.stoker.*} settings that a reader of {@code layers} takes, by
   * option name; settings of other layers are left out.
   *
   * @throws IllegalArgumentException for a {@code spark.stoker.*} setting that names no option
   */
  public static Map<String, String> sessionSettings(Map<String, String> sessionConf,
      Set<OptionLayer> layers) {
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
   * {@code given} (the options a read or run was given) over the session's settings for
   * {@code layers}: a setting stands in for an option only where none of that name (in any case)
   * was given.
   *
   * @throws IllegalArgumentException for a {@code spark.stoker.*} setting that names no option
   */
  public static Map<String, String> resolve(Map<String, String> given,
      Map<String, String> sessionConf, Set<OptionLayer> layers) {
    Map<String, String> resolved = new LinkedHashMap<>();
    sessionSettings(sessionConf, layers).forEach((name, value) -> {
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
    for (Tuple2<String, String> entry : session.sparkContext().getConf()
        .getAllWithPrefix(SESSION_PREFIX)) {
      settings.put(SESSION_PREFIX + entry._1(), entry._2());
    }
    scala.collection.Iterator<Tuple2<String, String>> runtime =
        session.conf().getAll().iterator();
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
    for (OptionSpec spec : ALL) {
      names.add(spec.name());
    }
    String closest = ClosestName.of(name, names);
    return new IllegalArgumentException(key + ": a session setting that names no option of "
        + "Stoker's (expected: " + (closest != null ? "did you mean '" + SESSION_PREFIX + closest
        + "'?" : SESSION_PREFIX + "<option>, one of " + String.join(", ", names)) + ")");
  }
}
