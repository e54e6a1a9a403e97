package dev.stoker.spark.source;

import java.nio.ByteBuffer;

/**
 * Reads Parquet's RLE / bit-packing hybrid encoding (levels and dictionary ids) run by run: a
 * run of one repeated value is taken whole, so that a page of all-equal levels costs a few
 * steps, not one per value. Bit-packed runs are read value by value.
 */
final class HybridDecoder {
  private final ByteBuffer in;
  private final int bitWidth;
  private final int valueBytes;
  private int position;
  private boolean rle;
  private int value;
  private int left;
  private int packedStart;
  private int packedIndex;

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

  /** Values left in the current run, starting the next one if this one is used up; 0 at the end. */
  int available() {
    if (left == 0 && position < in.limit()) {
      nextRun();
    }
    return left;
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
    long bit = (long) packedIndex++ * bitWidth;
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

  private void nextRun() {
    int header = 0;
    int shift = 0;
    byte b;
    do {
      b = in.get(position++);
      header |= (b & 0x7f) << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    if ((header & 1) == 0) {
      rle = true;
      left = header >>> 1;
      value = 0;
      for (int i = 0; i < valueBytes; i++) {
        value |= (in.get(position++) & 0xff) << (8 * i);
      }
    } else {
      rle = false;
      int groups = header >>> 1;
      left = groups * 8;
      packedStart = position;
      packedIndex = 0;
      position += groups * bitWidth;
    }
  }
}
