package dev.stoker.spark;

import dev.stoker.loader.OptionNames;
import dev.stoker.spark.options.SparkOptionTable;
import java.util.List;

/**
 * The names of the options a Spark run has beyond the loader's ({@link OptionNames#LOADER}), as
 * written in {@code .option(name, value)}; names match ignoring case. Each option is defined, with
 * its values, default and documentation, in {@link SparkOptionTable}; the reference page is {@code
 * docs/configuration.md}.
 */
public final class SparkOptionNames {
  /** The number of ranks: tasks of the barrier stage, one per GPU as a rule. Required. */
  public static final String WORLD_SIZE = OptionNames.WORLD_SIZE;

  /** {@link SparkOptionTable#MAX_SHARD_BYTES}: the most bytes of one rank's shard. */
  public static final String MAX_SHARD_BYTES = SparkOptionTable.MAX_SHARD_BYTES.name();

  /** {@link SparkOptionTable#SHARD_DIR}: the folder of the shards. */
  public static final String SHARD_DIR = SparkOptionTable.SHARD_DIR.name();

  /** {@link SparkOptionTable#REBALANCE}: the rows path's shuffle, {@code auto} or always. */
  public static final String REBALANCE = SparkOptionTable.REBALANCE.name();

  /** {@link SparkOptionTable#PROGRESS_INTERVAL}: how often ranks report progress. */
  public static final String PROGRESS_INTERVAL = SparkOptionTable.PROGRESS_INTERVAL.name();

  /** {@link SparkOptionTable#COLLECTIVE_TIMEOUT}: a collective call's longest wait. */
  public static final String COLLECTIVE_TIMEOUT = SparkOptionTable.COLLECTIVE_TIMEOUT.name();

  /** {@link SparkOptionTable#VERIFY_CHECKSUMS}: verify Parquet page checksums. */
  public static final String VERIFY_CHECKSUMS = SparkOptionTable.VERIFY_CHECKSUMS.name();

  /** {@link SparkOptionTable#CACHE}: a streaming rank's shard cache; see {@link CacheMode}. */
  public static final String CACHE = SparkOptionTable.CACHE.name();

  /** {@link SparkOptionTable#CACHE_MEMORY}: the most bytes of a shard cache kept in memory. */
  public static final String CACHE_MEMORY = SparkOptionTable.CACHE_MEMORY.name();

  /** {@link SparkOptionTable#EPOCH_ORDER}: the rows of later epochs; see {@link EpochOrder}. */
  public static final String EPOCH_ORDER = SparkOptionTable.EPOCH_ORDER.name();

  /** {@link SparkOptionTable#EPOCHS}: the epochs the rank function runs. */
  public static final String EPOCHS = SparkOptionTable.EPOCHS.name();

  /** The names a run reads besides the loader's knobs, in the order its errors list them. */
  public static final List<String> RUN =
      List.of(
          WORLD_SIZE,
          MAX_SHARD_BYTES,
          SHARD_DIR,
          REBALANCE,
          PROGRESS_INTERVAL,
          COLLECTIVE_TIMEOUT,
          VERIFY_CHECKSUMS,
          CACHE,
          CACHE_MEMORY,
          EPOCH_ORDER,
          EPOCHS);

  /** What {@code LoaderOptions.fromMap} should accept and leave to the run. */
  public static final List<String> ACCEPTED = RUN.subList(1, RUN.size());

  private SparkOptionNames() {}
}
