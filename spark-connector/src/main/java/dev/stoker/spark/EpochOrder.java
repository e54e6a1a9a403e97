package dev.stoker.spark;

import dev.stoker.spark.options.SparkOptionTable;
import java.util.Locale;

/**
 * Which rows each rank of a run that streams its Parquet input reads in the epochs after the first,
 * inside the run's one barrier stage. Either way every epoch gives every rank the same number of
 * full batches and every kept row once (but the rows {@code dropLast} leaves out).
 */
public enum EpochOrder {
  /**
   * The rows planned for the rank at the start, every epoch (default): shuffled within the rank
   * (within windows over its row groups, or over its whole shard cache), never moving between
   * ranks; later epochs may come from the rank's shard cache.
   */
  RANK,
  /**
   * Each epoch planned again over the whole input in that epoch's own order (the row groups
   * permuted by the seed and the epoch, then cut into the ranks' shares): the rows move between
   * ranks every epoch, as a new run per epoch would move them, without its stage. Every epoch
   * streams from the files (no shard cache), and the order of epoch {@code n} is the same on a
   * resumed run as on the run it resumes.
   */
  GLOBAL;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * {@code rank} or {@code global}, any case, with surrounding whitespace: the labels of {@link
   * SparkOptionTable#EPOCH_ORDER}, whose error names the option and the labels.
   */
  public static EpochOrder parse(String text) {
    return valueOf(SparkOptionTable.EPOCH_ORDER.parse(text).toUpperCase(Locale.ROOT));
  }
}
