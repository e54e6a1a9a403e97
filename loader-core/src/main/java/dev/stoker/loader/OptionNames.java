package dev.stoker.loader;

import java.util.List;

/**
 * The names of the loader's options, as written in code, Spark's {@code .option(...)} and SQL, in
 * two groups: the loader's knobs ({@link #LOADER}) and where a loader sits among its peers
 * ({@link #PLACEMENT}). Names match ignoring case, as Spark's options do. The Spark connector
 * keeps the registry of every option, its own included.
 */
public final class OptionNames {
  public static final String BATCH_SIZE = "batchSize";
  public static final String SHUFFLE = "shuffle";
  public static final String SEED = "seed";
  public static final String NUM_WORKERS = "numWorkers";
  public static final String PIN_MEMORY = "pinMemory";
  public static final String PREFETCH_FACTOR = "prefetchFactor";
  public static final String PERSISTENT_WORKERS = "persistentWorkers";
  public static final String DROP_LAST = "dropLast";
  public static final String TIMEOUT = "timeout";
  public static final String ON_BAD_SAMPLE = "onBadSample";
  public static final String MAX_HOST_BYTES = "maxHostBytes";
  public static final String TRANSFER_DEPTH = "transferDepth";
  public static final String NAME = "name";
  public static final String RANK = "rank";
  public static final String WORLD_SIZE = "worldSize";

  /**
   * The loader's knobs, the same on every rank, in the order of the documentation: what
   * {@link LoaderOptions} holds.
   */
  public static final List<String> LOADER = List.of(BATCH_SIZE, SHUFFLE, SEED, NUM_WORKERS,
      PIN_MEMORY, PREFETCH_FACTOR, PERSISTENT_WORKERS, DROP_LAST, TIMEOUT, ON_BAD_SAMPLE,
      MAX_HOST_BYTES, TRANSFER_DEPTH, NAME);

  /** Which shard a loader serves, what differs between ranks: what {@link Placement} holds. */
  public static final List<String> PLACEMENT = List.of(RANK, WORLD_SIZE);

  private OptionNames() {}
}
