package dev.stoker.spark;

import java.io.Serializable;

/**
 * Whether the RAPIDS Accelerator runs a session's SQL on GPUs: its plugin class ({@code
 * com.nvidia.spark.SQLPlugin}) is named in {@code spark.plugins} and loadable, and {@code
 * spark.rapids.sql.enabled} is not false (nor {@code spark.rapids.sql.mode} explain-only). Found by
 * {@code dev.stoker.spark.rapids.RapidsDetection}, without any RAPIDS class on the class path at
 * build time.
 *
 * @param configured {@code spark.plugins} names the plugin
 * @param loadable the plugin class is on the driver's class path
 * @param sqlEnabled {@code spark.rapids.sql.enabled} is true (its default) and the mode executes on
 *     the GPU
 */
public record RapidsStatus(boolean configured, boolean loadable, boolean sqlEnabled)
    implements Serializable {
  /** True when the session's SQL runs on GPUs through RAPIDS. */
  public boolean active() {
    return configured && loadable && sqlEnabled;
  }

  /** One line for the load report. */
  public String summary() {
    if (!configured) {
      return "not in use (" + "spark.plugins does not name com.nvidia.spark.SQLPlugin" + ")";
    }
    if (!loadable) {
      return "configured but not loadable (com.nvidia.spark.SQLPlugin is not on the driver's class path)";
    }
    if (!sqlEnabled) {
      return "configured but off (spark.rapids.sql.enabled=false or spark.rapids.sql.mode=explainOnly)";
    }
    return "active: the DataFrame's plan runs on GPUs and its rows reach Stoker through "
        + "RAPIDS' columnar-to-row transition";
  }

  @Override
  public String toString() {
    return "RAPIDS Accelerator " + summary();
  }
}
