package dev.stoker.spark.rapids;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.spark.sql.SparkSession;

/**
 * Whether the RAPIDS Accelerator runs a session's SQL on GPUs: its plugin class
 * ({@value #PLUGIN_CLASS}) is named in {@code spark.plugins} and loadable, and
 * {@code spark.rapids.sql.enabled} is not false (nor {@code spark.rapids.sql.mode} explain-only).
 * Found without any RAPIDS class on the class path at build time.
 *
 * @param configured {@code spark.plugins} names the plugin
 * @param loadable the plugin class is on the driver's class path
 * @param sqlEnabled {@code spark.rapids.sql.enabled} is true (its default) and the mode executes
 *     on the GPU
 */
public record RapidsStatus(boolean configured, boolean loadable, boolean sqlEnabled)
    implements Serializable {
  public static final String PLUGIN_CLASS = "com.nvidia.spark.SQLPlugin";
  public static final String PLUGINS = "spark.plugins";
  public static final String SQL_ENABLED = "spark.rapids.sql.enabled";
  public static final String SQL_MODE = "spark.rapids.sql.mode";

  /** The status of {@code session}: its static and runtime configuration, its class path. */
  public static RapidsStatus of(SparkSession session) {
    String plugins = session.sparkContext().getConf().get(PLUGINS, "");
    String enabled = session.conf().get(SQL_ENABLED, "true");
    String mode = session.conf().get(SQL_MODE, "executeongpu");
    return of(Map.of(PLUGINS, plugins, SQL_ENABLED, enabled, SQL_MODE, mode),
        RapidsStatus::loadable);
  }

  /** The status for configuration {@code conf}; {@code loadable} tells which classes load. */
  public static RapidsStatus of(Map<String, String> conf, Predicate<String> loadable) {
    boolean configured = Arrays.stream(conf.getOrDefault(PLUGINS, "").split(","))
        .map(String::strip).anyMatch(PLUGIN_CLASS::equals);
    boolean enabled = !"false".equalsIgnoreCase(conf.getOrDefault(SQL_ENABLED, "true").strip())
        && !"explainonly".equals(conf.getOrDefault(SQL_MODE, "executeongpu").strip()
            .toLowerCase(Locale.ROOT));
    return new RapidsStatus(configured, configured && loadable.test(PLUGIN_CLASS), enabled);
  }

  private static boolean loadable(String className) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try {
      Class.forName(className, false,
          loader != null ? loader : RapidsStatus.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** True when the session's SQL runs on GPUs through RAPIDS. */
  public boolean active() {
    return configured && loadable && sqlEnabled;
  }

  /** One line for the load report. */
  public String summary() {
    if (!configured) {
      return "not in use (" + PLUGINS + " does not name " + PLUGIN_CLASS + ")";
    }
    if (!loadable) {
      return "configured but not loadable (" + PLUGIN_CLASS + " is not on the driver's class path)";
    }
    if (!sqlEnabled) {
      return "configured but off (" + SQL_ENABLED + "=false or " + SQL_MODE + "=explainOnly)";
    }
    return "active: the DataFrame's plan runs on GPUs and its rows reach Stoker through "
        + "RAPIDS' columnar-to-row transition";
  }

  @Override
  public String toString() {
    return "RAPIDS Accelerator " + summary();
  }
}
