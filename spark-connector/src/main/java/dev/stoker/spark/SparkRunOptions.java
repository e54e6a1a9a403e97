package dev.stoker.spark;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OptionNames;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The validated options of a Spark run beyond the loader's knobs (see {@link SparkOptionNames}):
 * immutable and serializable, sent to every rank. Each value is checked as it is set; a bad one
 * is an {@link IllegalArgumentException} naming the option, the value and what is allowed.
 */
public final class SparkRunOptions implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final long DEFAULT_MAX_SHARD_BYTES = 64L << 30;
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_COLLECTIVE_TIMEOUT = Duration.ofMinutes(10);

  private final long maxShardBytes;
  private final String shardDir;
  private final Rebalance rebalance;
  private final Duration progressInterval;
  private final Duration collectiveTimeout;
  private final boolean verifyChecksums;
  private final CacheMode cache;
  private final int epochs;

  private SparkRunOptions(Builder b) {
    this.maxShardBytes = b.maxShardBytes;
    this.shardDir = b.shardDir;
    this.rebalance = b.rebalance;
    this.progressInterval = b.progressInterval;
    this.collectiveTimeout = b.collectiveTimeout;
    this.verifyChecksums = b.verifyChecksums;
    this.cache = b.cache;
    this.epochs = b.epochs;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The run's options among Spark-style string options, names ignoring case; every other name is
   * ignored (it belongs to the loader). Sizes and durations read as the loader's do
   * ({@code 512m}, {@code 30s}).
   */
  public static SparkRunOptions fromMap(Map<String, String> values) {
    Map<String, String> byName = new HashMap<>();
    values.forEach((key, value) -> {
      for (String name : SparkOptionNames.ACCEPTED) {
        if (name.equalsIgnoreCase(key)) {
          byName.put(name, value == null ? "" : value.strip());
        }
      }
    });
    Builder b = builder();
    String size = byName.get(SparkOptionNames.MAX_SHARD_BYTES);
    if (size != null) {
      b.maxShardBytes(parsed(SparkOptionNames.MAX_SHARD_BYTES, OptionNames.MAX_HOST_BYTES, size)
          .maxHostBytes());
    }
    String dir = byName.get(SparkOptionNames.SHARD_DIR);
    if (dir != null) {
      b.shardDir(dir);
    }
    String rebalance = byName.get(SparkOptionNames.REBALANCE);
    if (rebalance != null) {
      b.rebalance(Rebalance.parse(rebalance));
    }
    String interval = byName.get(SparkOptionNames.PROGRESS_INTERVAL);
    if (interval != null) {
      b.progressInterval(parsed(SparkOptionNames.PROGRESS_INTERVAL, OptionNames.TIMEOUT, interval)
          .timeout());
    }
    String collective = byName.get(SparkOptionNames.COLLECTIVE_TIMEOUT);
    if (collective != null) {
      b.collectiveTimeout(parsed(SparkOptionNames.COLLECTIVE_TIMEOUT, OptionNames.TIMEOUT,
          collective).timeout());
    }
    String verify = byName.get(SparkOptionNames.VERIFY_CHECKSUMS);
    if (verify != null) {
      if (!verify.equalsIgnoreCase("true") && !verify.equalsIgnoreCase("false")) {
        throw new IllegalArgumentException(SparkOptionNames.VERIFY_CHECKSUMS + ": '" + verify
            + "' (expected: true or false)");
      }
      b.verifyChecksums(Boolean.parseBoolean(verify));
    }
    String cache = byName.get(SparkOptionNames.CACHE);
    if (cache != null) {
      b.cache(CacheMode.parse(cache));
    }
    String epochs = byName.get(SparkOptionNames.EPOCHS);
    if (epochs != null) {
      int value;
      try {
        value = Integer.parseInt(epochs);
      } catch (NumberFormatException e) {
        value = -1;
      }
      if (value < 0) {
        throw new IllegalArgumentException(SparkOptionNames.EPOCHS + ": '" + epochs
            + "' (expected: a whole number from 0, the epochs the rank function runs; 0 when "
            + "not known)");
      }
      b.epochs(value);
    }
    return b.build();
  }

  /** Reads {@code text} with the parser of the loader's option {@code like}, errors renamed. */
  private static LoaderOptions parsed(String name, String like, String text) {
    try {
      return LoaderOptions.fromMap(Map.of(like, text));
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      throw new IllegalArgumentException(message.startsWith(like + ":")
          ? name + message.substring(like.length()) : name + ": " + message, e);
    }
  }

  /** Whether a rank streaming Parquet keeps a shard cache for later epochs. */
  public CacheMode cache() {
    return cache;
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
    return String.format(Locale.ROOT, "SparkRunOptions{%s=%d, %s=%s, %s=%s, %s=%s, %s=%s, %s=%s, %s=%s, %s=%d}",
        SparkOptionNames.MAX_SHARD_BYTES, maxShardBytes, SparkOptionNames.SHARD_DIR, shardDir,
        SparkOptionNames.REBALANCE, rebalance.label(), SparkOptionNames.PROGRESS_INTERVAL,
        progressInterval, SparkOptionNames.COLLECTIVE_TIMEOUT, collectiveTimeout,
        SparkOptionNames.VERIFY_CHECKSUMS, verifyChecksums, SparkOptionNames.CACHE,
        cache.label(), SparkOptionNames.EPOCHS, epochs);
  }

  /** Builds {@link SparkRunOptions}. */
  public static final class Builder {
    private long maxShardBytes = DEFAULT_MAX_SHARD_BYTES;
    private String shardDir;
    private Rebalance rebalance = Rebalance.AUTO;
    private Duration progressInterval = DEFAULT_PROGRESS_INTERVAL;
    private Duration collectiveTimeout = DEFAULT_COLLECTIVE_TIMEOUT;
    private boolean verifyChecksums = true;
    private CacheMode cache = CacheMode.AUTO;
    private int epochs;

    private Builder() {}

    /**
     * The epochs the rank function runs, >= 0 (default 0: not known): {@code cache=auto} writes
     * no cache for one, and writes it while the first epoch streams for more.
     */
    public Builder epochs(int value) {
      if (value < 0) {
        throw new IllegalArgumentException(SparkOptionNames.EPOCHS + ": " + value
            + " (expected: >= 0; 0 when not known)");
      }
      epochs = value;
      return this;
    }

    /** Whether a rank streaming Parquet keeps a shard cache (default {@link CacheMode#AUTO}). */
    public Builder cache(CacheMode value) {
      cache = Objects.requireNonNull(value, SparkOptionNames.CACHE);
      return this;
    }

    /**
     * Whether Stoker's Parquet decoder verifies page checksums where the files have them
     * (default true; false saves the time of a CRC-32 over every page read).
     */
    public Builder verifyChecksums(boolean value) {
      verifyChecksums = value;
      return this;
    }

    /** At most this many bytes per rank's shard, > 0 (default 64 GiB). */
    public Builder maxShardBytes(long value) {
      if (value <= 0) {
        throw new IllegalArgumentException(
            SparkOptionNames.MAX_SHARD_BYTES + ": " + value + " (expected: > 0)");
      }
      maxShardBytes = value;
      return this;
    }

    /** A local folder for the shards, on every executor (default: Spark's local directories). */
    public Builder shardDir(String value) {
      if (value != null && value.isBlank()) {
        throw new IllegalArgumentException(SparkOptionNames.SHARD_DIR + ": '" + value
            + "' (expected: a folder on the executors' local disk)");
      }
      shardDir = value == null ? null : value.strip();
      return this;
    }

    public Builder rebalance(Rebalance value) {
      rebalance = Objects.requireNonNull(value, SparkOptionNames.REBALANCE);
      return this;
    }

    /** How often each rank updates its progress accumulators, > 0 (default 1 s). */
    public Builder progressInterval(Duration value) {
      Objects.requireNonNull(value, SparkOptionNames.PROGRESS_INTERVAL);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(SparkOptionNames.PROGRESS_INTERVAL + ": "
            + value.toMillis() + " ms (expected: > 0)");
      }
      progressInterval = value;
      return this;
    }

    /**
     * Longest wait of a rank's collective call for a peer, >= 0 (default 10 min; 0 waits
     * forever, until the task is killed): how long an all-reduce waits for a peer's next bytes,
     * and {@code allGather}, {@code barrier} and the ranks' meeting (the first all-reduce) for
     * every rank to arrive; the bound on how long a rank waits for a peer that stopped making
     * the same calls without failing.
     */
    public Builder collectiveTimeout(Duration value) {
      Objects.requireNonNull(value, SparkOptionNames.COLLECTIVE_TIMEOUT);
      if (value.isNegative()) {
        throw new IllegalArgumentException(SparkOptionNames.COLLECTIVE_TIMEOUT + ": "
            + value.toMillis() + " ms (expected: >= 0; 0 waits forever)");
      }
      collectiveTimeout = value;
      return this;
    }

    public SparkRunOptions build() {
      return new SparkRunOptions(this);
    }
  }
}
