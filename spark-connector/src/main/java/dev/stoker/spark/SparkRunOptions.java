package dev.stoker.spark;

import dev.stoker.spark.options.OptionReader;
import dev.stoker.spark.options.SparkOptionTable;
import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The validated options of a Spark run beyond the loader's knobs (see {@link SparkOptionNames}):
 * immutable and serializable, sent to every rank. Each value is checked as it is set, by its
 * option's rule in {@link SparkOptionTable}; a bad one is an {@link IllegalArgumentException}
 * naming the option, the value and what is allowed.
 */
public final class SparkRunOptions implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final long DEFAULT_MAX_SHARD_BYTES =
      SparkOptionTable.MAX_SHARD_BYTES.defaultValue();
  public static final Duration DEFAULT_PROGRESS_INTERVAL =
      SparkOptionTable.PROGRESS_INTERVAL.defaultValue();
  public static final Duration DEFAULT_COLLECTIVE_TIMEOUT =
      SparkOptionTable.COLLECTIVE_TIMEOUT.defaultValue();

  private final long maxShardBytes;
  private final String shardDir;
  private final Rebalance rebalance;
  private final Duration progressInterval;
  private final Duration collectiveTimeout;
  private final boolean verifyChecksums;
  private final CacheMode cache;
  private final long cacheMemory;
  private final EpochOrder epochOrder;
  private final int epochs;

  private SparkRunOptions(Builder b) {
    this.maxShardBytes = b.maxShardBytes;
    this.shardDir = b.shardDir;
    this.rebalance = b.rebalance;
    this.progressInterval = b.progressInterval;
    this.collectiveTimeout = b.collectiveTimeout;
    this.verifyChecksums = b.verifyChecksums;
    this.cache = b.cache;
    this.cacheMemory = b.cacheMemory;
    this.epochOrder = b.epochOrder;
    this.epochs = b.epochs;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The run's options among Spark-style string options, names ignoring case; every other name is
   * ignored (it belongs to the loader). Sizes and durations read as the loader's do ({@code 512m},
   * {@code 30s}).
   */
  public static SparkRunOptions fromMap(Map<String, String> values) {
    OptionReader read = OptionReader.of(values);
    return builder()
        .maxShardBytes(read.get(SparkOptionTable.MAX_SHARD_BYTES))
        .shardDir(read.get(SparkOptionTable.SHARD_DIR))
        .rebalance(Rebalance.parse(read.get(SparkOptionTable.REBALANCE)))
        .progressInterval(read.get(SparkOptionTable.PROGRESS_INTERVAL))
        .collectiveTimeout(read.get(SparkOptionTable.COLLECTIVE_TIMEOUT))
        .verifyChecksums(read.get(SparkOptionTable.VERIFY_CHECKSUMS))
        .cache(CacheMode.parse(read.get(SparkOptionTable.CACHE)))
        .cacheMemory(read.get(SparkOptionTable.CACHE_MEMORY))
        .epochOrder(EpochOrder.parse(read.get(SparkOptionTable.EPOCH_ORDER)))
        .epochs(read.get(SparkOptionTable.EPOCHS))
        .build();
  }

  /** Whether a rank streaming Parquet keeps a shard cache for later epochs. */
  public CacheMode cache() {
    return cache;
  }

  /**
   * The most bytes of a rank's shard cache kept in memory, 0 for none, or {@link
   * SparkOptionTable#CACHE_MEMORY_AUTO}: a quarter of the memory free when the rank starts.
   */
  public long cacheMemory() {
    return cacheMemory;
  }

  /** Which rows a streaming rank reads in the epochs after the first; see {@link EpochOrder}. */
  public EpochOrder epochOrder() {
    return epochOrder;
  }

  /** The epochs the rank function runs, or 0 when not known. */
  public int epochs() {
    return epochs;
  }

  /** The most bytes one rank's shard may take on disk. */
  public long maxShardBytes() {
    return maxShardBytes;
  }

  /** The folder shards are cached in, or null for Spark's local directories. */
  public String shardDir() {
    return shardDir;
  }

  public Rebalance rebalance() {
    return rebalance;
  }

  public Duration progressInterval() {
    return progressInterval;
  }

  /**
   * Longest wait of a collective call (all-reduce, {@code allGather}, {@code barrier}, the ranks'
   * meeting) for a peer; zero waits forever.
   */
  public Duration collectiveTimeout() {
    return collectiveTimeout;
  }

  /** Whether Stoker's Parquet decoder verifies page checksums where the files have them. */
  public boolean verifyChecksums() {
    return verifyChecksums;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "SparkRunOptions{%s=%d, %s=%s, %s=%s, %s=%s, %s=%s, %s=%s, %s=%s, %s=%s, %s=%s, %s=%d}",
        SparkOptionNames.MAX_SHARD_BYTES,
        maxShardBytes,
        SparkOptionNames.SHARD_DIR,
        shardDir,
        SparkOptionNames.REBALANCE,
        rebalance.label(),
        SparkOptionNames.PROGRESS_INTERVAL,
        progressInterval,
        SparkOptionNames.COLLECTIVE_TIMEOUT,
        collectiveTimeout,
        SparkOptionNames.VERIFY_CHECKSUMS,
        verifyChecksums,
        SparkOptionNames.CACHE,
        cache.label(),
        SparkOptionNames.CACHE_MEMORY,
        cacheMemory == SparkOptionTable.CACHE_MEMORY_AUTO ? "auto" : cacheMemory,
        SparkOptionNames.EPOCH_ORDER,
        epochOrder.label(),
        SparkOptionNames.EPOCHS,
        epochs);
  }

  /**
   * Builds {@link SparkRunOptions}. Each setter checks its value by its option's rule in {@link
   * SparkOptionTable}, where the option's default is; an option not set keeps it.
   */
  public static final class Builder {
    private long maxShardBytes = DEFAULT_MAX_SHARD_BYTES;
    private String shardDir = SparkOptionTable.SHARD_DIR.defaultValue();
    private Rebalance rebalance = Rebalance.parse(SparkOptionTable.REBALANCE.defaultValue());
    private Duration progressInterval = DEFAULT_PROGRESS_INTERVAL;
    private Duration collectiveTimeout = DEFAULT_COLLECTIVE_TIMEOUT;
    private boolean verifyChecksums = SparkOptionTable.VERIFY_CHECKSUMS.defaultValue();
    private CacheMode cache = CacheMode.parse(SparkOptionTable.CACHE.defaultValue());
    private EpochOrder epochOrder = EpochOrder.parse(SparkOptionTable.EPOCH_ORDER.defaultValue());
    private long cacheMemory = SparkOptionTable.CACHE_MEMORY.defaultValue();
    private int epochs = SparkOptionTable.EPOCHS.defaultValue();

    private Builder() {}

    /**
     * The epochs the rank function runs, >= 0, 0 when not known: {@code cache=auto} writes no cache
     * for one, and writes it while the first epoch streams for more.
     */
    public Builder epochs(int value) {
      epochs = SparkOptionTable.EPOCHS.check(value);
      return this;
    }

    /**
     * The most bytes of a rank's shard cache kept in memory, >= 0 (0: never), or {@link
     * SparkOptionTable#CACHE_MEMORY_AUTO}.
     */
    public Builder cacheMemory(long value) {
      cacheMemory = SparkOptionTable.CACHE_MEMORY.check(value);
      return this;
    }

    /** Which rows a streaming rank reads in later epochs; see {@link EpochOrder}. */
    public Builder epochOrder(EpochOrder value) {
      epochOrder = Objects.requireNonNull(value, SparkOptionNames.EPOCH_ORDER);
      return this;
    }

    /** Whether a rank streaming Parquet keeps a shard cache; see {@link CacheMode}. */
    public Builder cache(CacheMode value) {
      cache = Objects.requireNonNull(value, SparkOptionNames.CACHE);
      return this;
    }

    /**
     * Whether Stoker's Parquet decoder verifies page checksums where the files have them (false
     * saves the time of a CRC-32 over every page read).
     */
    public Builder verifyChecksums(boolean value) {
      verifyChecksums = value;
      return this;
    }

    /** At most this many bytes per rank's shard, > 0. */
    public Builder maxShardBytes(long value) {
      maxShardBytes = SparkOptionTable.MAX_SHARD_BYTES.check(value);
      return this;
    }

    /** A local folder for the shards, on every executor; null for Spark's local directories. */
    public Builder shardDir(String value) {
      shardDir = SparkOptionTable.SHARD_DIR.check(value);
      return this;
    }

    public Builder rebalance(Rebalance value) {
      rebalance = Objects.requireNonNull(value, SparkOptionNames.REBALANCE);
      return this;
    }

    /** How often each rank updates its progress accumulators, > 0. */
    public Builder progressInterval(Duration value) {
      progressInterval = SparkOptionTable.PROGRESS_INTERVAL.check(value);
      return this;
    }

    /**
     * Longest wait of a rank's collective call for a peer, >= 0 (0 waits forever, until the task is
     * killed): how long an all-reduce waits for a peer's next bytes, and {@code allGather}, {@code
     * barrier} and the ranks' meeting (the first all-reduce) for every rank to arrive; the bound on
     * how long a rank waits for a peer that stopped making the same calls without failing.
     */
    public Builder collectiveTimeout(Duration value) {
      collectiveTimeout = SparkOptionTable.COLLECTIVE_TIMEOUT.check(value);
      return this;
    }

    public SparkRunOptions build() {
      return new SparkRunOptions(this);
    }
  }
}
