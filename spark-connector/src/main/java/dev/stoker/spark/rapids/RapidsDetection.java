package dev.stoker.spark.rapids;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.spark.sql.SparkSession;

/**
 * Finds whether the RAPIDS Accelerator runs a session's SQL on GPUs: its plugin class ({@value
 * #PLUGIN_CLASS}) is named in {@code spark.plugins} and loadable, and {@code
 * spark.rapids.sql.enabled} is not false (nor {@code spark.rapids.sql.mode} explain-only). Found
 * without any RAPIDS class on the class path at build time.
 */
public final class RapidsDetection {
  /**
   * What was found.
   *
   * @param configured {@code spark.plugins} names the plugin
   * @param loadable the plugin class is on the driver's class path
   * @param sqlEnabled {@code spark.rapids.sql.enabled} is true (its default) and the mode executes
   *     on the GPU
   */
  public record Found(boolean configured, boolean loadable, boolean sqlEnabled) {}

  public static final String PLUGIN_CLASS = "com.nvidia.spark.SQLPlugin";
  public static final String PLUGINS = "spark.plugins";
  public static final String SQL_ENABLED = "spark.rapids.sql.enabled";
  public static final String SQL_MODE = "spark.rapids.sql.mode";

  private RapidsDetection() {}

  /** The status of {@code session}: its static and runtime configuration, its class path. */
  public static Found of(SparkSession session) {
    String plugins = session.sparkContext().getConf().get(PLUGINS, "");
    String enabled = session.conf().get(SQL_ENABLED, "true");
    String mode = session.conf().get(SQL_MODE, "executeongpu");
    return of(
        Map.of(PLUGINS, plugins, SQL_ENABLED, enabled, SQL_MODE, mode), RapidsDetection::loadable);
  }

  /** The status for configuration {@code conf}; {@code loadable} tells which classes load. */
  public static Found of(Map<String, String> conf, Predicate<String> loadable) {
    boolean configured =
        Arrays.stream(conf.getOrDefault(PLUGINS, "").split(","))
            .map(String::strip)
            .anyMatch(PLUGIN_CLASS::equals);
    boolean enabled =
        !"false".equalsIgnoreCase(conf.getOrDefault(SQL_ENABLED, "true").strip())
            && !"explainonly"
                .equals(
                    conf.getOrDefault(SQL_MODE, "executeongpu").strip().toLowerCase(Locale.ROOT));
    return new Found(configured, configured && loadable.test(PLUGIN_CLASS), enabled);
  }

  private static boolean loadable(String className) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try {
      Class.forName(
          className, false, loader != null ? loader : RapidsDetection.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
