package dev.stoker.loader;

import java.util.Arrays;

/**
 * Which elements of each field one sample has written, exactly and without allocating in the
 * common cases: a field written front to back (in one bulk call or element by element) is a
 * covered prefix; only writes that leave a gap switch that field to a bit per element.
 */
final class FieldCoverage {
  private final int[] elements;
  /** Per field: elements [0, prefix) are written. */
  private final int[] prefix;
  /** Per field: a bit per element once the writes left a gap, else null. */
  private final long[][] bits;
  private final boolean[] gapped;
  private boolean anyGapped;

  FieldCoverage(Schema schema) {
    this.elements = new int[schema.size()];
    for (int f = 0; f < elements.length; f++) {
      elements[f] = schema.field(f).elements();
    }
    this.prefix = new int[elements.length];
    this.bits = new long[elements.length][];
    this.gapped = new boolean[elements.length];
  }

  /** Forgets every write: a new sample starts. */
  void reset() {
    Arrays.fill(prefix, 0);
    if (anyGapped) {
      Arrays.fill(gapped, false);
      anyGapped = false;
    }
  }

  /**
   * Elements {@code [element, element + length)} of {@code field} were written ({@code element
   * + length} must not overflow). Writes front to back cost two array reads and a store; the
   * rest is out of line.
   */
  void mark(int field, int element, int length) {
    int covered = prefix[field];
    if (element <= covered && !gapped[field]) {
      int end = element + length;
      if (end > covered) {
        prefix[field] = end;
      }
    } else if (length > 0) {
      markAfterGap(field, element, length);
    }
  }

  /** {@link #mark} of a write that leaves a gap, or of a field that already has one. */
  private void markAfterGap(int field, int element, int length) {
    if (!gapped[field]) {
      long[] words = bits[field];
      if (words == null) {
        words = new long[(elements[field] + 63) >>> 6];
        bits[field] = words;
      } else {
        Arrays.fill(words, 0L);
      }
      setRange(words, 0, prefix[field]);
      gapped[field] = true;
      anyGapped = true;
    }
    setRange(bits[field], element, element + length);
  }

  /** Elements of {@code field} written so far. */
  int written(int field) {
    if (!gapped[field]) {
      return prefix[field];
    }
    int count = 0;
    for (long word : bits[field]) {
      count += Long.bitCount(word);
    }
    return count;
  }

  /** The first field not written in full, or -1. */
  int firstIncomplete() {
    for (int f = 0; f < elements.length; f++) {
      if (written(f) < elements[f]) {
        return f;
      }
    }
    return -1;
  }

  private static void setRange(long[] words, int from, int to) {
    for (int i = from; i < to; ) {
      int word = i >>> 6;
      int bit = i & 63;
      int span = Math.min(64 - bit, to - i);
      long mask = span == 64 ? -1L : ((1L << span) - 1) << bit;
      words[word] |= mask;
      i += span;
    }
  }
}
