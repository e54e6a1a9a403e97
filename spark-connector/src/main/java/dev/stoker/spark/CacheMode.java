package dev.stoker.spark;

import dev.stoker.spark.options.SparkOptionTable;
import java.util.Locale;

/**
 * Whether a rank that streams its planned Parquet rows also keeps them in a shard cache, for the
 * epochs after the one that wrote it: in memory (a memory-backed folder, {@code /dev/shm}) where it
 * fits {@link SparkOptionNames#CACHE_MEMORY}, else on its executor's local disk. Only a run whose
 * input is a Parquet scan or a {@code format("stoker")} read streams; any other DataFrame's rows
 * always go to the shard first.
 */
public enum CacheMode {
  /**
   * Keeps a cache where it pays (default): in memory where it fits, written while the first epoch
   * streams (unless the run is told it has one epoch); else on the disk. Told the run's epochs
   * ({@link SparkOptionNames#EPOCHS}): none for one epoch; for more, written while the first epoch
   * streams, the stream waiting for the disk. Not told: written while the second epoch streams, and
   * given up if the disk does not keep pace with the stream. Either way, a cache that does not fit
   * the budget or the disk, or fails to write, is given up and every epoch streams from the files.
   */
  AUTO,
  /**
   * Writes the cache in memory while the first epoch streams; a cache larger than {@link
   * SparkOptionNames#CACHE_MEMORY} allows (or than the memory-backed folder can take) is an error.
   */
  MEMORY,
  /**
   * Writes the cache while the first epoch streams, the stream waiting for the disk where it must;
   * a cache that does not fit the budget or the disk is an error.
   */
  DISK,
  /** Never writes a cache: every epoch streams from the Parquet files. */
  NONE;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * {@code auto}, {@code memory}, {@code disk} or {@code none}, any case, with surrounding
   * whitespace: the labels of {@link SparkOptionTable#CACHE}, whose error names the option and the
   * labels.
   */
  public static CacheMode parse(String text) {
    return valueOf(SparkOptionTable.CACHE.parse(text).toUpperCase(Locale.ROOT));
  }
}
