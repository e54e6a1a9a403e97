package dev.stoker.spark;

import dev.stoker.loader.OptionNames;
import java.util.List;

/**
 * The names of the options a Spark run has beyond the loader's ({@link OptionNames#LOADER}), as
 * written in {@code .option(name, value)}; names match ignoring case.
 */
public final class SparkOptionNames {
  /** The number of ranks: tasks of the barrier stage, one per GPU as a rule. Required. */
  public static final String WORLD_SIZE = OptionNames.WORLD_SIZE;
  /** The most bytes one rank's shard may take on its executor's disk (default 64g). */
  public static final String MAX_SHARD_BYTES = "maxShardBytes";
  /** The folder shards are cached in (default: the executor's Spark local directories). */
  public static final String SHARD_DIR = "shardDir";
  /**
   * The rows path's shuffle: {@code auto}, none when the input is already balanced (default);
   * {@code always}. A streamed Parquet input needs none.
   */
  public static final String REBALANCE = "rebalance";
  /** How often each rank updates its progress accumulators (default 1s). */
  public static final String PROGRESS_INTERVAL = "progressInterval";

  /**
   * Longest wait of a rank's collective call (all-reduce, allGather, barrier, the ranks'
   * meeting) for its peers before a clear error (default 10m; 0 waits forever, until the task is
   * killed).
   */
  public static final String COLLECTIVE_TIMEOUT = "collectiveTimeout";

  /**
   * Whether Stoker's Parquet decoder verifies page checksums where the files have them,
   * {@code true} or {@code false} (default true).
   */
  public static final String VERIFY_CHECKSUMS = "verifyChecksums";

  /**
   * Whether a rank streaming a Parquet input keeps a shard cache for later epochs: {@code auto}
   * (default), {@code disk} or {@code none}; see {@link CacheMode}.
   */
  public static final String CACHE = "cache";

  /**
   * How many epochs the rank function runs, when known ({@code 0}, the default: not known). With
   * {@code cache=auto}, a run of one epoch writes no cache, and a run of more writes it while the
   * first epoch streams (else while the second does).
   */
  public static final String EPOCHS = "epochs";

  /** The names a run reads besides the loader's knobs. */
  public static final List<String> RUN = List.of(WORLD_SIZE, MAX_SHARD_BYTES, SHARD_DIR, REBALANCE,
      PROGRESS_INTERVAL, COLLECTIVE_TIMEOUT, VERIFY_CHECKSUMS, CACHE, EPOCHS);

  /** What {@code LoaderOptions.fromMap} should accept and leave to the run. */
  public static final List<String> ACCEPTED = List.of(MAX_SHARD_BYTES, SHARD_DIR, REBALANCE,
      PROGRESS_INTERVAL, COLLECTIVE_TIMEOUT, VERIFY_CHECKSUMS, CACHE, EPOCHS);

  private SparkOptionNames() {}
}
