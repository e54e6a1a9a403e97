package dev.stoker.spark.run;

import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderConfig;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OptionNames;
import dev.stoker.loader.Placement;
import dev.stoker.loader.Schema;
import dev.stoker.spark.DeviceFactory;
import dev.stoker.spark.RankFunction;
import dev.stoker.spark.RankProgress;
import dev.stoker.spark.SparkRunOptions;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.parquet.SourceOptions;
import dev.stoker.spark.rows.InputColumns;
import dev.stoker.spark.rows.RowCopier;
import dev.stoker.spark.shard.Normalization;
import dev.stoker.spark.shard.ShardLayout;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Where {@code StokerSpark.run} hands over: picks the input's path (its Parquet files streamed
 * straight into the ranks' loaders, or its rows through the shard), settles the options both a
 * {@code format("stoker")} read and the run may have been given, and runs the barrier stage.
 *
 * @param input the DataFrame
 * @param fields the declared columns, in batch order
 * @param loader the run's loader options
 * @param loaderGiven the names of the knobs the run was given (the rest are defaults)
 * @param worldSize the run's number of ranks, or null when not given
 */
public record StokerRun(
    Dataset<Row> input,
    List<Field> fields,
    List<Normalization> normalizations,
    LoaderOptions loader,
    Set<String> loaderGiven,
    SparkRunOptions run,
    Integer worldSize,
    DeviceFactory devices) {

  /** The knobs typed {@code options} chose (those that differ from the defaults). */
  public static Set<String> chosen(LoaderOptions options) {
    return OptionsMerge.chosen(options);
  }

  /** The knobs among string options' {@code keys}, by the loader's own names. */
  public static Set<String> named(Set<String> keys) {
    return OptionsMerge.named(keys);
  }

  /**
   * Runs {@code function} on every rank.
   *
   * @throws IllegalArgumentException for options that conflict or are missing, or an input that
   *     cannot be loaded as declared
   */
  public <R> TrainingResult<R> run(RankFunction<R> function, Consumer<RankProgress> progress) {
    PlannedInput planned = PlannedInput.of(input, fields);
    SourceOptions read = PlannedInput.stokerRead(input);
    LoaderOptions options = loader;
    int ranks;
    if (read != null) {
      options = OptionsMerge.merge(loader, loaderGiven, read.loader(), read.given());
      ranks =
          OptionsMerge.worldSize(
              worldSize, read.worldSize(), read.given().contains(OptionNames.WORLD_SIZE));
    } else if (worldSize != null) {
      ranks = worldSize;
    } else {
      throw worldSizeMissing();
    }
    RowCopier copier = InputColumns.bind(new ShardLayout(Schema.of(fields)), input.schema());
    RankSpec spec =
        new RankSpec(
            ranks,
            copier,
            LoaderConfig.of(options, Placement.SINGLE),
            run,
            devices,
            function,
            BarrierRun.counters(input),
            normalizations);
    return new BarrierRun(input, spec, planned).run(progress);
  }

  static IllegalArgumentException worldSizeMissing() {
    return new IllegalArgumentException(
        OptionNames.WORLD_SIZE
            + ": not set (expected: the "
            + "number of ranks, e.g. worldSize(2) or option(\"worldSize\", \"2\"))");
  }
}
