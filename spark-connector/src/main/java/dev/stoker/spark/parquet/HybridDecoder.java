package dev.stoker.spark.parquet;

import java.nio.ByteBuffer;

/**
 * Reads Parquet's RLE / bit-packing hybrid encoding (levels and dictionary ids) run by run: a run
 * of one repeated value is taken whole, so that a page of all-equal levels costs a few steps, not
 * one per value. Bit-packed runs are read value by value. Every run header is checked before it is
 * used: its count computed in {@code long} and positive, a bit-packed run's bytes and a repeated
 * value's within the bytes given, the value within the bit width; a run that is not is a {@link
 * PageFormatException}.
 */
public final class HybridDecoder {
  private final ByteBuffer in;
  private final int bitWidth;
  private final int valueBytes;
  private int position;
  private boolean rle;
  private int value;
  private long left;
  private int packedStart;
  private long packedIndex;

  /** Decodes {@code in}'s bytes from its position to its limit, values of {@code bitWidth} bits. */
  HybridDecoder(ByteBuffer in, int bitWidth) {
    if (bitWidth < 0 || bitWidth > 32) {
      throw new IllegalArgumentException("bit width " + bitWidth + " (expected: 0 to 32)");
    }
    this.in = in;
    this.bitWidth = bitWidth;
    this.valueBytes = (bitWidth + 7) / 8;
    this.position = in.position();
  }

  /** The bits needed for values up to {@code max}. */
  static int bitWidth(int max) {
    return 32 - Integer.numberOfLeadingZeros(max);
  }

  /**
   * Values left in the current run (at most {@link Integer#MAX_VALUE}), starting the next one if
   * this one is used up; 0 at the end.
   *
   * @throws PageFormatException if the next run's header does not fit the bytes left
   */
  int available() throws PageFormatException {
    if (left == 0 && position < in.limit()) {
      nextRun();
    }
    return (int) Math.min(left, Integer.MAX_VALUE);
  }

  /** Whether the current run repeats one value, {@link #value()}. */
  boolean rle() {
    return rle;
  }

  /** The value of the current RLE run. */
  int value() {
    return value;
  }

  /** The next value of the current run (one of {@link #available()}). */
  int next() {
    left--;
    if (rle) {
      return value;
    }
    long bit = packedIndex++ * bitWidth;
    int at = packedStart + (int) (bit >>> 3);
    int shift = (int) (bit & 7);
    long bits = 0;
    int bytes = (shift + bitWidth + 7) >>> 3;
    for (int i = 0; i < bytes; i++) {
      bits |= (long) (in.get(at + i) & 0xff) << (8 * i);
    }
    return (int) ((bits >>> shift) & ((1L << bitWidth) - 1));
  }

  /** Skips {@code n} values of the current run ({@code n <= available()}). */
  void skip(int n) {
    left -= n;
    if (!rle) {
      packedIndex += n;
    }
  }

  private void nextRun() throws PageFormatException {
    int start = position;
    long header = 0;
    int shift = 0;
    byte b;
    do {
      if (position == in.limit() || shift > 28) {
        throw bad("a run header that does not end within " + (position - start) + " bytes", start);
      }
      b = in.get(position++);
      header |= (long) (b & 0x7f) << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    long count = header >>> 1;
    if ((header & 1) == 0) {
      if (count == 0 || in.limit() - position < valueBytes) {
        throw bad(
            "a repeated run of "
                + count
                + " values of "
                + valueBytes
                + " bytes with "
                + (in.limit() - position)
                + " bytes left",
            start);
      }
      int repeated = 0;
      for (int i = 0; i < valueBytes; i++) {
        repeated |= (in.get(position++) & 0xff) << (8 * i);
      }
      if (bitWidth < 32 && repeated >>> bitWidth != 0) {
        throw bad(
            "a repeated value "
                + Integer.toUnsignedString(repeated)
                + " wider than "
                + bitWidth
                + " bits",
            start);
      }
      rle = true;
      value = repeated;
      left = count;
    } else {
      long bytes = count * bitWidth;
      if (count == 0 || bytes > in.limit() - position) {
        throw bad(
            "a bit-packed run of "
                + count
                + " groups of 8 values ("
                + bytes
                + " bytes) with "
                + (in.limit() - position)
                + " bytes left",
            start);
      }
      rle = false;
      left = count * 8;
      packedStart = position;
      packedIndex = 0;
      position += (int) bytes;
    }
  }

  private PageFormatException bad(String what, int at) {
    return new PageFormatException(
        what
            + ", at byte "
            + (at - in.position())
            + " of "
            + (in.limit() - in.position())
            + " bytes of "
            + bitWidth
            + "-bit values");
  }
}
