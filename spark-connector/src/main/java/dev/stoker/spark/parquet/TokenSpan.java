package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.Arrays;

/**
 * One rank's share of an epoch's packed tokens: it reads {@code documents} documents (whole row
 * groups of the epoch's order) and, piece by piece, passes over {@code skips[i]} tokens of that
 * stream and packs the next {@code takes[i]}, each a whole number of rows of {@code length} tokens.
 * A fresh rank has one piece; a resumed one a piece per stretch of the stream its predecessors
 * left.
 */
public record TokenSpan(long documents, long[] skips, long[] takes, int length)
    implements Serializable {
  public TokenSpan {
    skips = skips.clone();
    takes = takes.clone();
    boolean bad = documents < 0 || length <= 0 || skips.length != takes.length;
    for (int i = 0; !bad && i < skips.length; i++) {
      bad = skips[i] < 0 || takes[i] < 0 || takes[i] % length != 0;
    }
    if (bad) {
      throw new IllegalArgumentException(
          String.format(
              "token span of %d documents, skips %s takes %s, rows of %d (expected: counts >= 0, "
                  + "as many skips as takes, each take a multiple of the row length)",
              documents, Arrays.toString(skips), Arrays.toString(takes), length));
    }
  }

  /** One piece: {@code skip} tokens passed over, the next {@code take} packed. */
  public TokenSpan(long documents, long skip, long take, int length) {
    this(documents, new long[] {skip}, new long[] {take}, length);
  }

  @Override
  public long[] skips() {
    return skips.clone();
  }

  @Override
  public long[] takes() {
    return takes.clone();
  }

  /** The packed rows of the span. */
  public long rows() {
    long tokens = 0;
    for (long take : takes) {
      tokens += take;
    }
    return tokens / length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TokenSpan s
        && documents == s.documents
        && length == s.length
        && Arrays.equals(skips, s.skips)
        && Arrays.equals(takes, s.takes);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(documents) * 31 + Arrays.hashCode(takes);
  }

  @Override
  public String toString() {
    return String.format(
        "TokenSpan[%d documents, skips %s, takes %s, rows of %d]",
        documents, Arrays.toString(skips), Arrays.toString(takes), length);
  }
}
