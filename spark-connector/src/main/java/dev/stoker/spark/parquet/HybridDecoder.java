package dev.stoker.spark.parquet;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import org.apache.spark.unsafe.Platform;

/**
 * Reads Parquet's RLE / bit-packing hybrid encoding (levels and dictionary ids) run by run: a run
 * of one repeated value is taken whole, so that a page of all-equal levels costs a few steps, not
 * one per value. A bit-packed run is read a group of 8 values at a time where its bytes allow
 * (16-bit values as shorts, their loads bounds-checked once per block), and dictionary ids can be
 * looked up as they are read ({@link #lookUp}). Every run header is checked before it is used: its
 * count computed in {@code long} and positive, a bit-packed run's bytes and a repeated value's
 * within the bytes given, the value within the bit width; a run that is not is a {@link
 * PageFormatException}.
 */
public final class HybridDecoder {
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final ByteBuffer in;

  /** The input's bytes: index {@code i} of {@code in} is {@code array[arrayBase + i]}. */
  private final byte[] array;

  private final int arrayBase;
  private final int bitWidth;
  private final int valueBytes;

  /** For value {@code j} of a group of 8: its first byte in the group and its bit within it. */
  private final int[] groupBytes = new int[8];

  private final int[] groupShifts = new int[8];

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
    this.in = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (in.hasArray()) {
      this.array = in.array();
      this.arrayBase = in.arrayOffset();
    } else { // bit-packed values are read from an array, where 8-byte loads cost least
      this.array = new byte[in.limit()];
      in.get(in.position(), array, in.position(), in.remaining());
      this.arrayBase = 0;
    }
    this.bitWidth = bitWidth;
    this.valueBytes = (bitWidth + 7) / 8;
    for (int j = 0; j < 8; j++) {
      groupBytes[j] = j * bitWidth >>> 3;
      groupShifts[j] = j * bitWidth & 7;
    }
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
    long word =
        at <= in.limit() - Long.BYTES ? (long) LONG_LE.get(array, arrayBase + at) : tailWord(at);
    return (int) ((word >>> (bit & 7)) & ((1L << bitWidth) - 1));
  }

  /**
   * Reads up to {@code n} values into {@code out} from {@code offset}, across runs: a repeated run
   * as one fill, a bit-packed run through a 64-bit window over its bytes. Fewer than {@code n} only
   * at the end of the bytes.
   *
   * @return the values read
   * @throws PageFormatException if a run's header does not fit the bytes left
   */
  int read(int[] out, int offset, int n) throws PageFormatException {
    int done = 0;
    while (done < n) {
      int k = Math.min(available(), n - done);
      if (k == 0) {
        break;
      }
      if (rle) {
        Arrays.fill(out, offset + done, offset + done + k, value);
        left -= k;
      } else {
        unpack(out, offset + done, k);
      }
      done += k;
    }
    return done;
  }

  /**
   * Reads up to {@code n} values as indexes into {@code table} (a dictionary's 4-byte entries) and
   * writes {@code table[value]} for each, little-endian, to {@code dst} from byte {@code at} on:
   * 16-bit values are looked up as they are loaded, without a block of ids between; other widths
   * are unpacked into {@code block} first, as many as it holds at a time. Fewer than {@code n} only
   * at the end of the bytes.
   *
   * @return the values read and looked up
   * @throws PageFormatException for a value not below the table's length, or a run's header that
   *     does not fit the bytes left
   */
  int lookUp(int[] table, int n, byte[] dst, int at, int[] block) throws PageFormatException {
    Objects.checkFromIndexSize(at, (int) Math.min(4L * n, Integer.MAX_VALUE), dst.length);
    long address = Platform.BYTE_ARRAY_OFFSET + at;
    int done = 0;
    while (done < n) {
      int k = Math.min(available(), n - done);
      if (k == 0) {
        break;
      }
      if (rle) {
        int entry = ordered(table[checkedId(value, table)]);
        for (int i = 0; i < k; i++, address += 4) {
          Platform.putInt(dst, address, entry);
        }
        left -= k;
      } else if (bitWidth == 16) {
        lookUp16(table, k, dst, address);
        address += 4L * k;
      } else {
        k = Math.min(k, block.length);
        unpack(block, 0, k);
        for (int i = 0; i < k; i++, address += 4) {
          Platform.putInt(dst, address, ordered(table[checkedId(block[i], table)]));
        }
      }
      done += k;
    }
    return done;
  }

  /** The next {@code k} values of a bit-packed run of 16-bit ids, looked up as they are loaded. */
  private void lookUp16(int[] table, int k, byte[] dst, long address) throws PageFormatException {
    left -= k;
    int at = arrayBase + packedStart + (int) (packedIndex * 2);
    packedIndex += k;
    Objects.checkFromIndexSize(at, 2 * k, array.length); // once: the loads are not checked
    long from = Platform.BYTE_ARRAY_OFFSET + at;
    for (int i = 0; i < k; i++, from += 2, address += 4) {
      short bits = Platform.getShort(array, from);
      int id = (char) (LITTLE_ENDIAN ? bits : Short.reverseBytes(bits));
      Platform.putInt(dst, address, ordered(table[checkedId(id, table)]));
    }
  }

  private static int checkedId(int id, int[] table) throws PageFormatException {
    if (id >= table.length || id < 0) {
      throw new PageFormatException(
          "dictionary id " + Integer.toUnsignedString(id) + " of a dictionary of " + table.length);
    }
    return id;
  }

  /** A little-endian int's value as the machine stores ints. */
  private static int ordered(int value) {
    return LITTLE_ENDIAN ? value : Integer.reverseBytes(value);
  }

  /**
   * The next {@code k} values of the current bit-packed run ({@code k <= available()}): 16-bit
   * values as shorts; other widths value by value up to a group of 8's start, then group by group,
   * then value by value again.
   */
  private void unpack(int[] out, int offset, int k) {
    left -= k;
    if (bitWidth == 0) {
      Arrays.fill(out, offset, offset + k, 0);
      packedIndex += k;
      return;
    }
    long bit = packedIndex * bitWidth;
    packedIndex += k;
    if (bitWidth == 16) { // dictionaries of 32,769 to 65,536 entries: vocabularies of that size
      int at = arrayBase + packedStart + (int) (bit >>> 3);
      Objects.checkFromIndexSize(at, 2 * k, array.length); // once: the loads are not checked
      long address = Platform.BYTE_ARRAY_OFFSET + at;
      for (int i = 0; i < k; i++, address += 2) {
        short value = Platform.getShort(array, address);
        out[offset + i] = (char) (LITTLE_ENDIAN ? value : Short.reverseBytes(value));
      }
      return;
    }
    int head = (int) Math.min(k, (8 - (bit / bitWidth) % 8) % 8);
    unpackEach(out, offset, head, bit);
    int i = head;
    bit += (long) head * bitWidth;
    int groups = Math.min((k - i) / 8, wholeGroupsFrom(packedStart + (int) (bit >>> 3)));
    if (groups > 0) {
      unpackGroups(out, offset + i, groups, arrayBase + packedStart + (int) (bit >>> 3));
      i += 8 * groups;
      bit += 8L * groups * bitWidth;
    }
    unpackEach(out, offset + i, k - i, bit);
  }

  /**
   * Whole groups of 8 values whose loads, from {@code at} on, stay within the input: each group's
   * last value is loaded at most {@code 7 * bitWidth / 8} bytes into it, 8 bytes at a time.
   */
  private int wholeGroupsFrom(int at) {
    int room = in.limit() - Long.BYTES - (7 * bitWidth >>> 3) - at;
    return room < 0 ? 0 : room / bitWidth + 1;
  }

  /**
   * {@code groups} groups of 8 values from byte {@code at} of the array on: a group is {@code
   * bitWidth} bytes, its values at the same bit offsets in every group. {@link #wholeGroupsFrom}
   * bounds the loads, checked once here.
   */
  private void unpackGroups(int[] out, int offset, int groups, int at) {
    Objects.checkFromIndexSize(
        at, (groups - 1) * bitWidth + (7 * bitWidth >>> 3) + 8, array.length);
    Objects.checkFromIndexSize(offset, 8 * groups, out.length);
    long mask = (1L << bitWidth) - 1;
    int[] bytes = groupBytes;
    int[] shifts = groupShifts;
    long address = Platform.BYTE_ARRAY_OFFSET + at;
    for (int g = 0; g < groups; g++, address += bitWidth, offset += 8) {
      for (int j = 0; j < 8; j++) {
        long word = Platform.getLong(array, address + bytes[j]);
        word = LITTLE_ENDIAN ? word : Long.reverseBytes(word);
        out[offset + j] = (int) ((word >>> shifts[j]) & mask);
      }
    }
  }

  /**
   * {@code count} values from bit {@code bit} of the run on, each from one little-endian 8-byte
   * load at its first byte (a value and its bit offset span at most 39 bits), assembled byte by
   * byte in the last 8 bytes of the input.
   */
  private void unpackEach(int[] out, int offset, int count, long bit) {
    long mask = (1L << bitWidth) - 1;
    int lastWord = in.limit() - Long.BYTES;
    int start = packedStart;
    for (int i = 0; i < count; i++, bit += bitWidth) {
      int at = start + (int) (bit >>> 3);
      long word = at <= lastWord ? (long) LONG_LE.get(array, arrayBase + at) : tailWord(at);
      out[offset + i] = (int) ((word >>> (bit & 7)) & mask);
    }
  }

  /** The bytes from {@code at} to the input's end as a little-endian word, zero above them. */
  private long tailWord(int at) {
    long word = 0;
    for (int i = 0; at + i < in.limit(); i++) {
      word |= (long) (in.get(at + i) & 0xff) << (8 * i);
    }
    return word;
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
