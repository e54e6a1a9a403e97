package dev.stoker.loader;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The validated, immutable options of a {@link DataLoader}, named after PyTorch's DataLoader
 * arguments: the knobs that are the same on every rank. Which shard a loader serves is its
 * {@link Placement}; what travels to Spark's executors is a {@link LoaderConfig}. Every value is
 * checked in its builder method; the rules between options are checked in {@link Builder#build()}.
 * Each bad value is an {@link IllegalArgumentException} naming the option, the value and what is
 * allowed. An option not given keeps its default.
 */
public final class LoaderOptions {
  public static final String BATCH_SIZE = OptionNames.BATCH_SIZE;
  public static final String SHUFFLE = OptionNames.SHUFFLE;
  public static final String SEED = OptionNames.SEED;
  public static final String NUM_WORKERS = OptionNames.NUM_WORKERS;
  public static final String PIN_MEMORY = OptionNames.PIN_MEMORY;
  public static final String PREFETCH_FACTOR = OptionNames.PREFETCH_FACTOR;
  public static final String PERSISTENT_WORKERS = OptionNames.PERSISTENT_WORKERS;
  public static final String DROP_LAST = OptionNames.DROP_LAST;
  public static final String TIMEOUT = OptionNames.TIMEOUT;
  public static final String ON_BAD_SAMPLE = OptionNames.ON_BAD_SAMPLE;
  public static final String MAX_HOST_BYTES = OptionNames.MAX_HOST_BYTES;
  public static final String TRANSFER_DEPTH = OptionNames.TRANSFER_DEPTH;
  public static final String NAME = OptionNames.NAME;

  /** Every option name, in the order of the documentation: {@link OptionNames#LOADER}. */
  public static final List<String> NAMES = OptionNames.LOADER;

  /**
   * The most worker threads a loader may have. Each worker is a platform thread with its own
   * stack and at least one batch of host memory of its own, and the largest machines have a few
   * hundred hardware threads (two sockets of 192 cores with two threads each make 768): beyond
   * that, workers only wait for each other. A fixed bound, rather than a multiple of the local
   * processors, so that options checked on a Spark driver hold on every executor.
   */
  public static final int MAX_WORKERS = 1024;

  public static final int DEFAULT_PREFETCH_FACTOR = 2;
  public static final long DEFAULT_MAX_HOST_BYTES = 4L << 30;
  public static final int DEFAULT_TRANSFER_DEPTH = 2;

  private final int batchSize;
  private final boolean shuffle;
  private final long seed;
  private final int numWorkers;
  private final boolean pinMemory;
  private final int prefetchFactor;
  private final boolean persistentWorkers;
  private final boolean dropLast;
  private final Duration timeout;
  private final OnBadSample onBadSample;
  private final long maxHostBytes;
  private final int transferDepth;
  private final String name;

  private LoaderOptions(Builder b) {
    this.batchSize = b.batchSize;
    this.shuffle = b.shuffle;
    this.seed = b.seed;
    this.numWorkers = b.numWorkers;
    this.pinMemory = b.pinMemory;
    this.prefetchFactor = b.prefetchFactor == null ? DEFAULT_PREFETCH_FACTOR : b.prefetchFactor;
    this.persistentWorkers = b.persistentWorkers;
    this.dropLast = b.dropLast;
    this.timeout = b.timeout;
    this.onBadSample = b.onBadSample;
    this.maxHostBytes = b.maxHostBytes;
    this.transferDepth = b.transferDepth;
    this.name = b.name;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Options from string values, e.g. Spark's {@code .option(...)} map. Names match ignoring case;
   * the same name twice in different case is an error. Placement names ({@code rank},
   * {@code worldSize}) are accepted and left to their reader; any other name is an error that suggests the closest known name. Sizes take a
   * binary unit ({@code 512m}), durations a unit of time ({@code 30s}; plain digits are ms).
   */
  public static LoaderOptions fromMap(Map<String, String> values) {
    return OptionParser.parse(values, List.of());
  }

  /**
   * As {@link #fromMap(Map)}, also accepting (and ignoring) {@code alsoAccepted}: the names of a
   * Spark source's own options, such as {@code epoch}.
   */
  public static LoaderOptions fromMap(Map<String, String> values,
      Collection<String> alsoAccepted) {
    return OptionParser.parse(values, List.copyOf(alsoAccepted));
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    Builder b = builder().batchSize(batchSize).shuffle(shuffle).seed(seed).numWorkers(numWorkers)
        .pinMemory(pinMemory).persistentWorkers(persistentWorkers).dropLast(dropLast)
        .timeout(timeout).onBadSample(onBadSample)
        .maxHostBytes(maxHostBytes).transferDepth(transferDepth).name(name);
    if (numWorkers > 0) {
      b.prefetchFactor(prefetchFactor);
    }
    return b;
  }

  public int batchSize() {
    return batchSize;
  }

  public boolean shuffle() {
    return shuffle;
  }

  public long seed() {
    return seed;
  }

  public int numWorkers() {
    return numWorkers;
  }

  public boolean pinMemory() {
    return pinMemory;
  }

  public int prefetchFactor() {
    return prefetchFactor;
  }

  public boolean persistentWorkers() {
    return persistentWorkers;
  }

  public boolean dropLast() {
    return dropLast;
  }

  /** Longest wait for one batch; zero waits forever. */
  public Duration timeout() {
    return timeout;
  }

  /** {@link #timeout()} in nanoseconds; 0 waits forever. Never overflows: the builder checks. */
  public long timeoutNanos() {
    return timeout.toNanos();
  }

  public OnBadSample onBadSample() {
    return onBadSample;
  }

  public long maxHostBytes() {
    return maxHostBytes;
  }

  public int transferDepth() {
    return transferDepth;
  }

  /** The loader's name (thread names, messages), or null for a generated one. */
  public String name() {
    return name;
  }

  /** Batches that may be in flight in the fill stage: numWorkers x prefetchFactor, or 1. */
  public int prefetchWindow() {
    return numWorkers == 0 ? 1 : numWorkers * prefetchFactor;
  }

  /**
   * The options as name-value pairs, in documentation order; the timeout as text {@link #fromMap}
   * reads back exactly ({@code 30000ms}), the name null when generated.
   */
  public Map<String, Object> asMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put(BATCH_SIZE, batchSize);
    map.put(SHUFFLE, shuffle);
    map.put(SEED, seed);
    map.put(NUM_WORKERS, numWorkers);
    map.put(PIN_MEMORY, pinMemory);
    map.put(PREFETCH_FACTOR, prefetchFactor);
    map.put(PERSISTENT_WORKERS, persistentWorkers);
    map.put(DROP_LAST, dropLast);
    map.put(TIMEOUT, OptionValues.durationText(timeout));
    map.put(ON_BAD_SAMPLE, onBadSample.label());
    map.put(MAX_HOST_BYTES, maxHostBytes);
    map.put(TRANSFER_DEPTH, transferDepth);
    map.put(NAME, name);
    return map;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LoaderOptions other && asMap().equals(other.asMap());
  }

  @Override
  public int hashCode() {
    return asMap().hashCode();
  }

  @Override
  public String toString() {
    return "LoaderOptions" + asMap();
  }

  /** Builds {@link LoaderOptions}; PyTorch's defaults where it has them. */
  public static final class Builder {
    private int batchSize = 1;
    private boolean shuffle;
    private long seed;
    private int numWorkers;
    private boolean pinMemory;
    private Integer prefetchFactor;
    private boolean persistentWorkers;
    private boolean dropLast;
    private Duration timeout = Duration.ZERO;
    private OnBadSample onBadSample = OnBadSample.FAIL;
    private long maxHostBytes = DEFAULT_MAX_HOST_BYTES;
    private int transferDepth = DEFAULT_TRANSFER_DEPTH;
    private String name;

    private Builder() {}

    /** Samples per batch, > 0 (default 1). */
    public Builder batchSize(int value) {
      batchSize = positive(BATCH_SIZE, value);
      return this;
    }

    /** Reshuffle every epoch; the order is a pure function of (seed, epoch, rank, worldSize). */
    public Builder shuffle(boolean value) {
      shuffle = value;
      return this;
    }

    public Builder seed(long value) {
      seed = value;
      return this;
    }

    /**
     * Worker threads, 0 to {@value #MAX_WORKERS}; 0 loads in the caller's thread (default).
     */
    public Builder numWorkers(int value) {
      if (value < 0) {
        throw new IllegalArgumentException(NUM_WORKERS + ": " + value
            + " (expected: >= 0; 0 loads in the caller's thread)");
      }
      if (value > MAX_WORKERS) {
        throw new IllegalArgumentException(NUM_WORKERS + ": " + value + " (expected: <= "
            + MAX_WORKERS + "; a few per core is plenty, more threads only wait for each other)");
      }
      numWorkers = value;
      return this;
    }

    /** Page-locked host slots for asynchronous copies; without CUDA, direct memory and a warning. */
    public Builder pinMemory(boolean value) {
      pinMemory = value;
      return this;
    }

    /** Batches each worker loads ahead, >= 1 (default 2); only with numWorkers > 0. */
    public Builder prefetchFactor(int value) {
      prefetchFactor = positive(PREFETCH_FACTOR, value);
      return this;
    }

    /** Keep worker threads and slots across epochs; only with numWorkers > 0. */
    public Builder persistentWorkers(boolean value) {
      persistentWorkers = value;
      return this;
    }

    /** Drop the short last batch, so that every batch (on every rank) has batchSize rows. */
    public Builder dropLast(boolean value) {
      dropLast = value;
      return this;
    }

    /**
     * Longest wait for one batch before a clear error; zero (default) waits forever. At most
     * {@code Long.MAX_VALUE} nanoseconds (about 292 years), so that {@link #timeoutNanos()} fits.
     */
    public Builder timeout(Duration value) {
      Objects.requireNonNull(value, TIMEOUT);
      if (value.isNegative()) {
        throw new IllegalArgumentException(TIMEOUT + ": " + OptionValues.describe(value)
            + " (expected: >= 0; 0 waits forever)");
      }
      if (value.compareTo(OptionValues.MAX_DURATION) > 0) {
        throw new IllegalArgumentException(TIMEOUT + ": " + OptionValues.describe(value)
            + " (expected: " + OptionValues.MAX_DURATION_TEXT + "; 0 waits forever)");
      }
      timeout = value;
      return this;
    }

    public Builder onBadSample(OnBadSample value) {
      onBadSample = Objects.requireNonNull(value, ON_BAD_SAMPLE);
      return this;
    }

    /** Budget of the host slot pool in bytes, > 0 (default 4 GiB). */
    public Builder maxHostBytes(long value) {
      if (value <= 0) {
        throw new IllegalArgumentException(MAX_HOST_BYTES + ": " + value + " (expected: > 0)");
      }
      maxHostBytes = value;
      return this;
    }

    /** Batches copied to the device ahead of the consumer, >= 1 (default 2). */
    public Builder transferDepth(int value) {
      transferDepth = positive(TRANSFER_DEPTH, value);
      return this;
    }

    /** Name for threads and messages, stripped of surrounding whitespace (default: generated). */
    public Builder name(String value) {
      if (value != null && value.isBlank()) {
        throw new IllegalArgumentException(NAME + ": '" + value + "' (expected: a non-blank name)");
      }
      name = value == null ? null : value.strip();
      return this;
    }

    /**
     * Checks the rules between options and builds: prefetchFactor and persistentWorkers only with
     * workers, and numWorkers x prefetchFactor (the batches in flight) within int range.
     */
    public LoaderOptions build() {
      if (numWorkers == 0 && prefetchFactor != null) {
        throw new IllegalArgumentException(PREFETCH_FACTOR + ": " + prefetchFactor
            + " (expected: only with numWorkers > 0; numWorkers is 0)");
      }
      if (numWorkers == 0 && persistentWorkers) {
        throw new IllegalArgumentException(PERSISTENT_WORKERS
            + ": true (expected: only with numWorkers > 0; numWorkers is 0)");
      }
      int factor = prefetchFactor == null ? DEFAULT_PREFETCH_FACTOR : prefetchFactor;
      long inFlight = (long) numWorkers * factor;
      if (inFlight > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(String.format("%s: %d with %s=%d makes %d batches in "
            + "flight (expected: numWorkers x prefetchFactor <= %d)", PREFETCH_FACTOR, factor,
            NUM_WORKERS, numWorkers, inFlight, Integer.MAX_VALUE));
      }
      return new LoaderOptions(this);
    }

    private static int positive(String option, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(option + ": " + value + " (expected: > 0)");
      }
      return value;
    }
  }
}
