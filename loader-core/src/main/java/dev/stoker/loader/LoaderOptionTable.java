package dev.stoker.loader;

import dev.stoker.loader.option.OptionValues;
import dev.stoker.loader.option.StokerOption;
import dev.stoker.loader.option.StokerOption.Check;
import dev.stoker.loader.option.ValueType;
import java.time.Duration;
import java.util.List;

/**
 * The loader's options, each defined once: name, kind of value, rule, default and documentation,
 * named after PyTorch's DataLoader arguments. {@link LoaderOptions} and its builder, {@link
 * Placement}, {@link LoaderConfig}, the names of {@link OptionNames} and the Spark connector's
 * table (which adds where each option is read) all come from here, and so does the reference page,
 * {@code docs/configuration.md}.
 */
public final class LoaderOptionTable {
  public static final StokerOption<Integer> BATCH_SIZE =
      StokerOption.builder("batchSize", ValueType.INT)
          .values("int > 0")
          .check(Check.positive())
          .defaultValue(1)
          .doc("Samples per batch.")
          .build();

  public static final StokerOption<Boolean> SHUFFLE =
      StokerOption.builder("shuffle", ValueType.BOOLEAN)
          .values("true|false")
          .defaultValue(false)
          .doc(
              "Reshuffle every epoch; the order is a pure function of (seed, epoch, rank, "
                  + "worldSize).")
          .build();

  public static final StokerOption<Long> SEED =
      StokerOption.builder("seed", ValueType.LONG)
          .values("long")
          .defaultValue(0L)
          .doc("Seed of the shuffled order.")
          .build();

  public static final StokerOption<Integer> NUM_WORKERS =
      StokerOption.builder("numWorkers", ValueType.INT)
          .values("int 0..1024")
          .check(LoaderOptionTable::workers)
          .defaultValue(0)
          .doc("Worker threads that fill batches; 0 loads in the caller's thread.")
          .build();

  public static final StokerOption<Boolean> PIN_MEMORY =
      StokerOption.builder("pinMemory", ValueType.BOOLEAN)
          .values("true|false")
          .defaultValue(false)
          .doc(
              "Page-locked host slots for asynchronous copies; without CUDA, direct memory and "
                  + "a warning.")
          .build();

  public static final StokerOption<Integer> PREFETCH_FACTOR =
      StokerOption.builder("prefetchFactor", ValueType.INT)
          .values("int > 0, with numWorkers > 0")
          .check(Check.positive())
          .defaultValue(2)
          .doc("Batches each worker loads ahead; only with numWorkers > 0.")
          .build();

  public static final StokerOption<Boolean> PERSISTENT_WORKERS =
      StokerOption.builder("persistentWorkers", ValueType.BOOLEAN)
          .values("true|false")
          .defaultValue(false)
          .doc("Keep worker threads and slots across epochs; only with numWorkers > 0.")
          .build();

  public static final StokerOption<Boolean> DROP_LAST =
      StokerOption.builder("dropLast", ValueType.BOOLEAN)
          .values("true|false")
          .defaultValue(false)
          .doc("Drop the short last batch, so that every batch on every rank has batchSize rows.")
          .build();

  public static final StokerOption<Duration> TIMEOUT =
      StokerOption.builder("timeout", ValueType.DURATION)
          .values("duration (30s, 500ms; digits alone are ms)")
          .check(LoaderOptionTable::timeout)
          .defaultValue(Duration.ZERO)
          .doc("Longest wait for one batch before a clear error; 0 waits forever.")
          .build();

  public static final StokerOption<OnBadSample> ON_BAD_SAMPLE =
      StokerOption.builder(
              "onBadSample",
              ValueType.of((name, text) -> OnBadSample.parse(text), OnBadSample::label))
          .values("fail|skip")
          .check(Check.nonNull())
          .defaultValue(OnBadSample.FAIL)
          .doc("A sample the dataset fails to write fails its batch, or is skipped.")
          .build();

  public static final StokerOption<Long> MAX_HOST_BYTES =
      StokerOption.builder("maxHostBytes", ValueType.BYTES)
          .values("size (512m, 4g)")
          .check(Check.positive())
          .defaultValue(4L << 30)
          .doc("Budget of the host slot pool in bytes.")
          .build();

  public static final StokerOption<Integer> TRANSFER_DEPTH =
      StokerOption.builder("transferDepth", ValueType.INT)
          .values("int > 0")
          .check(Check.positive())
          .defaultValue(2)
          .doc("Batches copied to the device ahead of the consumer.")
          .build();

  public static final StokerOption<String> NAME =
      StokerOption.builder("name", ValueType.TEXT)
          .values("text")
          .check(LoaderOptionTable::name)
          .defaultText("(generated)")
          .doc("The loader's name in thread names and messages.")
          .build();

  public static final StokerOption<Integer> RANK =
      StokerOption.builder("rank", ValueType.INT)
          .values("int >= 0, < worldSize")
          .check(LoaderOptionTable::rank)
          .defaultValue(0)
          .doc("Which of the worldSize shards this loader serves.")
          .build();

  public static final StokerOption<Integer> WORLD_SIZE =
      StokerOption.builder("worldSize", ValueType.INT)
          .values("int > 0")
          .check(Check.positive())
          .defaultValue(1)
          .doc("The number of ranks, each serving its shard of every epoch.")
          .build();

  /**
   * The loader's knobs, the same on every rank, in the order of the documentation: what {@link
   * LoaderOptions} holds.
   */
  public static final List<StokerOption<?>> KNOBS =
      List.of(
          BATCH_SIZE,
          SHUFFLE,
          SEED,
          NUM_WORKERS,
          PIN_MEMORY,
          PREFETCH_FACTOR,
          PERSISTENT_WORKERS,
          DROP_LAST,
          TIMEOUT,
          ON_BAD_SAMPLE,
          MAX_HOST_BYTES,
          TRANSFER_DEPTH,
          NAME);

  /** Which shard a loader serves, what differs between ranks: what {@link Placement} holds. */
  public static final List<StokerOption<?>> PLACEMENT = List.of(RANK, WORLD_SIZE);

  private LoaderOptionTable() {}

  private static Integer workers(String name, Integer value) {
    if (value < 0) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: >= 0; 0 loads in the caller's thread)");
    }
    if (value > LoaderOptions.MAX_WORKERS) {
      throw new IllegalArgumentException(
          name
              + ": "
              + value
              + " (expected: <= "
              + LoaderOptions.MAX_WORKERS
              + "; a few per core is plenty, more threads only wait for each other)");
    }
    return value;
  }

  /** At most {@link OptionValues#MAX_DURATION}, so that its nanoseconds fit in a long. */
  private static Duration timeout(String name, Duration value) {
    if (value == null) {
      throw new NullPointerException(name);
    }
    if (value.isNegative()) {
      throw new IllegalArgumentException(
          name + ": " + OptionValues.describe(value) + " (expected: >= 0; 0 waits forever)");
    }
    if (value.compareTo(OptionValues.MAX_DURATION) > 0) {
      throw new IllegalArgumentException(
          name
              + ": "
              + OptionValues.describe(value)
              + " (expected: "
              + OptionValues.MAX_DURATION_TEXT
              + "; 0 waits forever)");
    }
    return value;
  }

  /** Null (a generated name) or a non-blank name, stripped of surrounding whitespace. */
  private static String name(String name, String value) {
    if (value != null && value.isBlank()) {
      throw new IllegalArgumentException(name + ": '" + value + "' (expected: a non-blank name)");
    }
    return value == null ? null : value.strip();
  }

  private static Integer rank(String name, Integer value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
    }
    return value;
  }
}
