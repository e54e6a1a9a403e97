package dev.stoker.loader;

import dev.stoker.loader.option.OptionMap;
import dev.stoker.loader.option.StokerOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The validated, immutable options of a {@link DataLoader}, named after PyTorch's DataLoader
 * arguments: the knobs that are the same on every rank. Which shard a loader serves is its {@link
 * Placement}; what travels to Spark's executors is a {@link LoaderConfig}. Every value is checked
 * in its builder method; the rules between options are checked in {@link Builder#build()}. Each bad
 * value is an {@link IllegalArgumentException} naming the option, the value and what is allowed. An
 * option not given keeps its default.
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
   * The most worker threads a loader may have. Each worker is a platform thread with its own stack
   * and at least one batch of host memory of its own, and the largest machines have a few hundred
   * hardware threads (two sockets of 192 cores with two threads each make 768): beyond that,
   * workers only wait for each other. A fixed bound, rather than a multiple of the local
   * processors, so that options checked on a Spark driver hold on every executor.
   */
  public static final int MAX_WORKERS = 1024;

  public static final int DEFAULT_PREFETCH_FACTOR =
      LoaderOptionTable.PREFETCH_FACTOR.defaultValue();
  public static final long DEFAULT_MAX_HOST_BYTES = LoaderOptionTable.MAX_HOST_BYTES.defaultValue();
  public static final int DEFAULT_TRANSFER_DEPTH = LoaderOptionTable.TRANSFER_DEPTH.defaultValue();

  /** Every knob's value (its default where none was given), by option, in the table's order. */
  private final Map<StokerOption<?>, Object> values;

  /*
   * The values the loader reads on its paths per batch or sample, unboxed once here: a getter is a
   * field read, not a map lookup.
   */
  private final int batchSize;
  private final boolean shuffle;
  private final long seed;
  private final int numWorkers;
  private final boolean pinMemory;
  private final int prefetchFactor;
  private final boolean persistentWorkers;
  private final boolean dropLast;
  private final long maxHostBytes;
  private final int transferDepth;

  private LoaderOptions(Builder b) {
    Map<StokerOption<?>, Object> all = new LinkedHashMap<>();
    for (StokerOption<?> option : LoaderOptionTable.KNOBS) {
      all.put(option, b.get(option));
    }
    this.values = Collections.unmodifiableMap(all);
    this.batchSize = get(LoaderOptionTable.BATCH_SIZE);
    this.shuffle = get(LoaderOptionTable.SHUFFLE);
    this.seed = get(LoaderOptionTable.SEED);
    this.numWorkers = get(LoaderOptionTable.NUM_WORKERS);
    this.pinMemory = get(LoaderOptionTable.PIN_MEMORY);
    this.prefetchFactor = get(LoaderOptionTable.PREFETCH_FACTOR);
    this.persistentWorkers = get(LoaderOptionTable.PERSISTENT_WORKERS);
    this.dropLast = get(LoaderOptionTable.DROP_LAST);
    this.maxHostBytes = get(LoaderOptionTable.MAX_HOST_BYTES);
    this.transferDepth = get(LoaderOptionTable.TRANSFER_DEPTH);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Options from string values, e.g. Spark's {@code .option(...)} map. Names match ignoring case;
   * the same name twice in different case is an error. Placement names ({@code rank}, {@code
   * worldSize}) are accepted and left to their reader; any other name is an error that suggests the
   * closest known name. Sizes take a binary unit ({@code 512m}), durations a unit of time ({@code
   * 30s}; plain digits are ms).
   */
  public static LoaderOptions fromMap(Map<String, String> values) {
    return fromMap(values, List.of());
  }

  /**
   * As {@link #fromMap(Map)}, also accepting (and ignoring) {@code alsoAccepted}: the names of a
   * Spark source's own options, such as {@code epoch}.
   */
  public static LoaderOptions fromMap(Map<String, String> values, Collection<String> alsoAccepted) {
    List<String> accepted = new ArrayList<>(OptionNames.PLACEMENT);
    accepted.addAll(alsoAccepted);
    OptionMap map = OptionMap.strict(values, OptionNames.LOADER, accepted);
    Builder b = builder();
    for (StokerOption<?> option : LoaderOptionTable.KNOBS) {
      String text = map.get(option.name());
      if (text != null) {
        b.read(option, text);
      }
    }
    return b.build();
  }

  /** A builder holding these options, to change some of them. */
  public Builder toBuilder() {
    Builder b = builder();
    values.forEach(
        (option, value) -> {
          if (option != LoaderOptionTable.PREFETCH_FACTOR || numWorkers() > 0) {
            b.values.put(option, value);
          }
        });
    return b;
  }

  @SuppressWarnings("unchecked")
  private <T> T get(StokerOption<T> option) {
    return (T) values.get(option);
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
    return get(LoaderOptionTable.TIMEOUT);
  }

  /** {@link #timeout()} in nanoseconds; 0 waits forever. Never overflows: the builder checks. */
  public long timeoutNanos() {
    return timeout().toNanos();
  }

  public OnBadSample onBadSample() {
    return get(LoaderOptionTable.ON_BAD_SAMPLE);
  }

  public long maxHostBytes() {
    return maxHostBytes;
  }

  public int transferDepth() {
    return transferDepth;
  }

  /** The loader's name (thread names, messages), or null for a generated one. */
  public String name() {
    return get(LoaderOptionTable.NAME);
  }

  /** Batches that may be in flight in the fill stage: numWorkers x prefetchFactor, or 1. */
  public int prefetchWindow() {
    return numWorkers() == 0 ? 1 : numWorkers() * prefetchFactor();
  }

  /**
   * The options as name-value pairs, in documentation order; the timeout as text {@link #fromMap}
   * reads back exactly ({@code 30000ms}), the name null when generated.
   */
  public Map<String, Object> asMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    values.forEach((option, value) -> map.put(option.name(), plain(option, value)));
    return map;
  }

  @SuppressWarnings("unchecked")
  private static <T> Object plain(StokerOption<T> option, Object value) {
    return option.plain((T) value);
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

  /**
   * Builds {@link LoaderOptions}. Each setter checks its value by its option's rule in {@link
   * LoaderOptionTable}, where the option's default is (PyTorch's where it has one); an option not
   * set keeps it.
   */
  public static final class Builder {
    /** The options given, by option; the others keep their defaults. */
    private final Map<StokerOption<?>, Object> values = new HashMap<>();

    private Builder() {}

    /** {@link LoaderOptionTable#BATCH_SIZE}: samples per batch, > 0. */
    public Builder batchSize(int value) {
      return set(LoaderOptionTable.BATCH_SIZE, value);
    }

    /** {@link LoaderOptionTable#SHUFFLE}: reshuffle every epoch. */
    public Builder shuffle(boolean value) {
      return set(LoaderOptionTable.SHUFFLE, value);
    }

    /** {@link LoaderOptionTable#SEED}: the seed of the shuffled order. */
    public Builder seed(long value) {
      return set(LoaderOptionTable.SEED, value);
    }

    /**
     * {@link LoaderOptionTable#NUM_WORKERS}: worker threads, 0 to {@value #MAX_WORKERS}; 0 loads in
     * the caller's thread.
     */
    public Builder numWorkers(int value) {
      return set(LoaderOptionTable.NUM_WORKERS, value);
    }

    /** {@link LoaderOptionTable#PIN_MEMORY}: page-locked host slots. */
    public Builder pinMemory(boolean value) {
      return set(LoaderOptionTable.PIN_MEMORY, value);
    }

    /**
     * {@link LoaderOptionTable#PREFETCH_FACTOR}: batches each worker loads ahead, >= 1; only with
     * numWorkers > 0.
     */
    public Builder prefetchFactor(int value) {
      return set(LoaderOptionTable.PREFETCH_FACTOR, value);
    }

    /**
     * {@link LoaderOptionTable#PERSISTENT_WORKERS}: keep worker threads and slots across epochs;
     * only with numWorkers > 0.
     */
    public Builder persistentWorkers(boolean value) {
      return set(LoaderOptionTable.PERSISTENT_WORKERS, value);
    }

    /** {@link LoaderOptionTable#DROP_LAST}: drop the short last batch. */
    public Builder dropLast(boolean value) {
      return set(LoaderOptionTable.DROP_LAST, value);
    }

    /**
     * {@link LoaderOptionTable#TIMEOUT}: longest wait for one batch before a clear error; zero
     * waits forever. At most {@code Long.MAX_VALUE} nanoseconds (about 292 years), so that {@link
     * #timeoutNanos()} fits.
     */
    public Builder timeout(Duration value) {
      return set(LoaderOptionTable.TIMEOUT, value);
    }

    /** {@link LoaderOptionTable#ON_BAD_SAMPLE}: fail the batch or skip the sample. */
    public Builder onBadSample(OnBadSample value) {
      return set(LoaderOptionTable.ON_BAD_SAMPLE, value);
    }

    /** {@link LoaderOptionTable#MAX_HOST_BYTES}: the host slot pool's budget in bytes, > 0. */
    public Builder maxHostBytes(long value) {
      return set(LoaderOptionTable.MAX_HOST_BYTES, value);
    }

    /** {@link LoaderOptionTable#TRANSFER_DEPTH}: batches copied ahead, >= 1. */
    public Builder transferDepth(int value) {
      return set(LoaderOptionTable.TRANSFER_DEPTH, value);
    }

    /**
     * {@link LoaderOptionTable#NAME}: the name for threads and messages, stripped of surrounding
     * whitespace; null for a generated one.
     */
    public Builder name(String value) {
      return set(LoaderOptionTable.NAME, value);
    }

    /**
     * Checks the rules between options and builds: prefetchFactor and persistentWorkers only with
     * workers, and numWorkers x prefetchFactor (the batches in flight) within int range.
     */
    public LoaderOptions build() {
      int numWorkers = get(LoaderOptionTable.NUM_WORKERS);
      int factor = get(LoaderOptionTable.PREFETCH_FACTOR);
      if (numWorkers == 0 && values.containsKey(LoaderOptionTable.PREFETCH_FACTOR)) {
        throw new IllegalArgumentException(
            PREFETCH_FACTOR
                + ": "
                + factor
                + " (expected: only with numWorkers > 0; numWorkers is 0)");
      }
      if (numWorkers == 0 && get(LoaderOptionTable.PERSISTENT_WORKERS)) {
        throw new IllegalArgumentException(
            PERSISTENT_WORKERS + ": true (expected: only with numWorkers > 0; numWorkers is 0)");
      }
      long inFlight = (long) numWorkers * factor;
      if (inFlight > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            String.format(
                "%s: %d with %s=%d makes %d batches in "
                    + "flight (expected: numWorkers x prefetchFactor <= %d)",
                PREFETCH_FACTOR, factor, NUM_WORKERS, numWorkers, inFlight, Integer.MAX_VALUE));
      }
      return new LoaderOptions(this);
    }

    private <T> Builder set(StokerOption<T> option, T value) {
      values.put(option, option.check(value));
      return this;
    }

    /** Sets {@code option} from its text, read as the option reads it. */
    private <T> void read(StokerOption<T> option, String text) {
      set(option, option.valueType().reader().read(option.name(), text));
    }

    /** The value given for {@code option}, else its default. */
    @SuppressWarnings("unchecked")
    private <T> T get(StokerOption<T> option) {
      return values.containsKey(option) ? (T) values.get(option) : option.defaultValue();
    }
  }
}
