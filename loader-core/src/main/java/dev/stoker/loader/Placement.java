package dev.stoker.loader;

import dev.stoker.loader.option.OptionMap;
import dev.stoker.loader.option.StokerOption;
import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.Map;

/**
 * Which shard of the data a loader serves: rank {@code rank} of {@code worldSize}, as PyTorch's
 * {@code DistributedSampler(rank, num_replicas)}. Kept apart from the {@link LoaderOptions} knobs:
 * the knobs are the same on every rank, the placement is what differs. A placement read from a Java
 * serialization stream is checked as {@link #of} checks it.
 */
public final class Placement implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Rank 0 of 1: the whole dataset. */
  public static final Placement SINGLE = new Placement(0, 1);

  private final int rank;
  private final int worldSize;

  private Placement(int rank, int worldSize) {
    this.rank = rank;
    this.worldSize = worldSize;
  }

  /**
   * Rank {@code rank} of {@code worldSize}.
   *
   * @throws IllegalArgumentException unless {@code 0 <= rank < worldSize}
   */
  public static Placement of(int rank, int worldSize) {
    LoaderOptionTable.WORLD_SIZE.check(worldSize);
    LoaderOptionTable.RANK.check(rank);
    if (rank >= worldSize) {
      throw new IllegalArgumentException(
          OptionNames.RANK
              + ": "
              + rank
              + " (expected: 0 <= rank < "
              + OptionNames.WORLD_SIZE
              + " = "
              + worldSize
              + ")");
    }
    return rank == 0 && worldSize == 1 ? SINGLE : new Placement(rank, worldSize);
  }

  /**
   * The placement in string values, e.g. Spark's {@code .option(...)} map: {@code rank} (default 0)
   * and {@code worldSize} (default 1), names matching ignoring case. Every other name is ignored:
   * it belongs to another layer. The same name twice in different case is an error.
   */
  public static Placement fromMap(Map<String, String> values) {
    OptionMap map = OptionMap.lenient(values, OptionNames.PLACEMENT);
    return of(read(map, LoaderOptionTable.RANK), read(map, LoaderOptionTable.WORLD_SIZE));
  }

  /** The value given for {@code option}, read but not yet checked, else its default. */
  private static int read(OptionMap map, StokerOption<Integer> option) {
    String text = map.get(option.name());
    return text == null
        ? option.defaultValue()
        : option.valueType().reader().read(option.name(), text);
  }

  public int rank() {
    return rank;
  }

  public int worldSize() {
    return worldSize;
  }

  /** Checks what a stream holds, as {@link #of} does; the whole dataset stays {@link #SINGLE}. */
  private Object readResolve() throws ObjectStreamException {
    try {
      return of(rank, worldSize);
    } catch (IllegalArgumentException e) {
      InvalidObjectException invalid = new InvalidObjectException("Placement: " + e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Placement other && rank == other.rank && worldSize == other.worldSize;
  }

  @Override
  public int hashCode() {
    return 31 * rank + worldSize;
  }

  @Override
  public String toString() {
    return "rank " + rank + " of " + worldSize;
  }
}
