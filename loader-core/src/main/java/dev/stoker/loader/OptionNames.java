package dev.stoker.loader;

import dev.stoker.loader.option.StokerOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The names of the loader's options, as written in code, Spark's {@code .option(...)} and SQL, in
 * two groups: the loader's knobs ({@link #LOADER}) and where a loader sits among its peers ({@link
 * #PLACEMENT}). Names match ignoring case, as Spark's options do. Each name is its option's in
 * {@link LoaderOptionTable}, where the option is defined.
 */
public final class OptionNames {
  public static final String BATCH_SIZE = LoaderOptionTable.BATCH_SIZE.name();
  public static final String SHUFFLE = LoaderOptionTable.SHUFFLE.name();
  public static final String SEED = LoaderOptionTable.SEED.name();
  public static final String NUM_WORKERS = LoaderOptionTable.NUM_WORKERS.name();
  public static final String PIN_MEMORY = LoaderOptionTable.PIN_MEMORY.name();
  public static final String PREFETCH_FACTOR = LoaderOptionTable.PREFETCH_FACTOR.name();
  public static final String PERSISTENT_WORKERS = LoaderOptionTable.PERSISTENT_WORKERS.name();
  public static final String DROP_LAST = LoaderOptionTable.DROP_LAST.name();
  public static final String TIMEOUT = LoaderOptionTable.TIMEOUT.name();
  public static final String ON_BAD_SAMPLE = LoaderOptionTable.ON_BAD_SAMPLE.name();
  public static final String MAX_HOST_BYTES = LoaderOptionTable.MAX_HOST_BYTES.name();
  public static final String TRANSFER_DEPTH = LoaderOptionTable.TRANSFER_DEPTH.name();
  public static final String NAME = LoaderOptionTable.NAME.name();
  public static final String RANK = LoaderOptionTable.RANK.name();
  public static final String WORLD_SIZE = LoaderOptionTable.WORLD_SIZE.name();

  /**
   * The loader's knobs, the same on every rank, in the order of the documentation: what {@link
   * LoaderOptions} holds.
   */
  public static final List<String> LOADER = names(LoaderOptionTable.KNOBS);

  /** Which shard a loader serves, what differs between ranks: what {@link Placement} holds. */
  public static final List<String> PLACEMENT = names(LoaderOptionTable.PLACEMENT);

  private OptionNames() {}

  /** The names of {@code options}, in their order. */
  public static List<String> names(List<? extends StokerOption<?>> options) {
    List<String> names = new ArrayList<>(options.size());
    for (StokerOption<?> option : options) {
      names.add(option.name());
    }
    return Collections.unmodifiableList(names);
  }
}
