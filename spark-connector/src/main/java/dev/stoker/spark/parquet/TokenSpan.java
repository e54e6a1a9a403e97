package dev.stoker.spark.parquet;

import java.io.Serializable;

/**
 * One rank's share of an epoch's packed tokens: it reads {@code documents} documents (whole row
 * groups of the epoch's order), passes over their first {@code skip} tokens and packs the next
 * {@code take}, a whole number of rows of {@code length} tokens.
 */
public record TokenSpan(long documents, long skip, long take, int length) implements Serializable {
  public TokenSpan {
    if (documents < 0 || skip < 0 || take < 0 || length <= 0 || take % length != 0) {
      throw new IllegalArgumentException(
          String.format(
              "token span of %d documents, skip %d take %d, rows of %d (expected: counts >= 0, "
                  + "take a multiple of the row length)",
              documents, skip, take, length));
    }
  }

  /** The packed rows of the span. */
  public long rows() {
    return take / length;
  }
}
