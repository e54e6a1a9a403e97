package dev.stoker.spark;

import dev.stoker.spark.options.SparkOptionTable;
import java.util.Locale;

/**
 * Whether a run's rows path shuffles its input into one partition per rank. A Parquet input that
 * the ranks stream from its files is planned per rank from its footers and needs no shuffle.
 */
public enum Rebalance {
  /**
   * Uses the input as it is when it already has one partition per rank whose row counts differ by
   * at most one (found out while the ranks read it, at no extra cost); shuffles otherwise.
   */
  AUTO,
  /** Always shuffles once: row i goes to rank i % worldSize. */
  ALWAYS;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * {@code auto} or {@code always}, any case, with surrounding whitespace: the labels of {@link
   * SparkOptionTable#REBALANCE}, whose error names the option and the labels.
   */
  public static Rebalance parse(String text) {
    return valueOf(SparkOptionTable.REBALANCE.parse(text).toUpperCase(Locale.ROOT));
  }
}
