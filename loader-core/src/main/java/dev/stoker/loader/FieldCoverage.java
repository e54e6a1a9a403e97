package dev.stoker.loader;

import java.util.Arrays;

/**
 * Which elements of each field one sample has written, exactly and without allocating in the common
 * cases: a field written front to back (in one bulk call or element by element) is a covered
 * prefix; only writes that leave a gap switch that field to a bit per element.
 *
 * <p>{@link #mark} is inlined into every dataset's {@code write()}: its common case is one array
 * read, a compare and a store, and all else is out of line, so that it leaves the JIT's
 * optimization of the dataset's own loops alone.
 */
final class FieldCoverage {
  /** The prefix of a field whose writes left a gap: below every element index. */
  private static final int GAPPED = -1;

  private final int[] elements;

  /** Per field: elements [0, prefix) are written, or {@link #GAPPED}. */
  private final int[] prefix;

  /** Per field: a bit per element once the writes left a gap (made the first time), else null. */
  private final long[][] bits;

  FieldCoverage(Schema schema) {
    this.elements = new int[schema.size()];
    for (int f = 0; f < elements.length; f++) {
      elements[f] = schema.field(f).elements();
    }
    this.prefix = new int[elements.length];
    this.bits = new long[elements.length][];
  }

  /** Forgets every write: a new sample starts. */
  void reset() {
    Arrays.fill(prefix, 0);
  }

  /**
   * Elements {@code [element, element + length)} of {@code field} were written ({@code element} and
   * {@code length} non-negative, their sum no overflow).
   */
  void mark(int field, int element, int length) {
    int covered = prefix[field];
    if (element <= covered) {
      int end = element + length;
      if (end > covered) {
        prefix[field] = end;
      }
    } else {
      markAfterGap(field, element, length);
    }
  }

  /** {@link #mark} of a write that leaves a gap, or of a field that already has one. */
  private void markAfterGap(int field, int element, int length) {
    if (length == 0) {
      return;
    }
    if (prefix[field] != GAPPED) {
      long[] words = bits[field];
      if (words == null) {
        words = new long[(elements[field] + 63) >>> 6];
        bits[field] = words;
      } else {
        Arrays.fill(words, 0L);
      }
      setRange(words, 0, prefix[field]);
      prefix[field] = GAPPED;
    }
    setRange(bits[field], element, element + length);
  }

  /** Elements of {@code field} written so far. */
  int written(int field) {
    if (prefix[field] != GAPPED) {
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
