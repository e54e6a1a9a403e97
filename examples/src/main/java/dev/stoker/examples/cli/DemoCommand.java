package dev.stoker.examples.cli;

import dev.stoker.examples.demo.DemoJob;
import dev.stoker.examples.demo.DemoOptions;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stoker demo}: the main job ({@link DemoJob}) on an embedded Spark, {@code local[2]} (or as
 * many threads as ranks), stopped when the job ends.
 */
@Command(
    name = "demo",
    description =
        "Train a small CNN (PyTorch's, through libtorch; the MLP "
            + "with --model mlp or where libtorch cannot load) on Fashion-MNIST data-parallel over Spark "
            + "ranks fed by Stoker: data, normalization statistics, training, plot and summary.")
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin DemoOptions options;

  @Override
  public Integer call() throws Exception {
    try {
      options.check();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    SparkSession spark =
        SparkSession.builder()
            .master("local[" + Math.max(2, options.ranks) + "]")
            .appName("stoker-demo")
            .config("spark.ui.enabled", "true") // the Stoker page, whose address the demo prints
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.executor.heartbeatInterval", "1s") // the progress bar's pace
            .getOrCreate();
    try {
      new DemoJob(spark, options, System.out, System.err).run();
      return 0;
    } finally {
      spark.stop();
    }
  }
}
