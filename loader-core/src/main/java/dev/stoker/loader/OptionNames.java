package dev.stoker.loader;

/** The names of every Stoker option, as written in code, Spark's {@code .option(...)} and SQL. */
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

  private OptionNames() {}
}
