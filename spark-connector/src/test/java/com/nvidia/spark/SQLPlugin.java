package com.nvidia.spark;

import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * A stand-in for the RAPIDS Accelerator's plugin class, doing nothing: lets a test session name it
 * in {@code spark.plugins}, as a RAPIDS cluster does, without RAPIDS' jars or a GPU.
 */
public final class SQLPlugin implements SparkPlugin {
  @Override
  public DriverPlugin driverPlugin() {
    return null;
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return null;
  }
}
