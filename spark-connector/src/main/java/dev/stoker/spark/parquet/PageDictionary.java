package dev.stoker.spark.parquet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.spark.unsafe.Platform;

/**
 * A column chunk's dictionary, decoded once: fixed-size values (numbers, fixed-length bytes) back
 * to back in one buffer, variable-length bytes as arrays. Copies entry {@code id} to a window. The
 * entry count and every length prefix are checked against the bytes left before anything is
 * allocated for them.
 */
public final class PageDictionary {
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private final ByteBuffer fixed;
  private final int size;
  private final int entries;
  private final byte[][] variable;
  private int[] ints;
  private long[] longs;

  private PageDictionary(ByteBuffer fixed, int size, int entries, byte[][] variable) {
    this.fixed = fixed;
    this.size = size;
    this.entries = entries;
    this.variable = variable;
  }

  /**
   * Decodes {@code page} (PLAIN-encoded values): {@code size} bytes each, or length-prefixed bytes
   * when {@code size} is -1.
   *
   * @throws PageFormatException if the page's bytes cannot hold the entries it declares
   */
  static PageDictionary of(DictionaryPage page, int size) throws IOException {
    ByteBuffer bytes = page.getBytes().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    int entries = page.getDictionarySize();
    long least = (long) entries * (size >= 0 ? size : 4);
    if (entries < 0 || bytes.remaining() < least) {
      throw new PageFormatException(
          "a dictionary page of "
              + entries
              + " values of "
              + (size >= 0 ? size + " bytes" : "at least 4 bytes")
              + " that holds "
              + bytes.remaining()
              + " bytes");
    }
    if (size >= 0) {
      return new PageDictionary(bytes.slice().order(ByteOrder.LITTLE_ENDIAN), size, entries, null);
    }
    int start = bytes.position();
    byte[][] values = new byte[entries][];
    for (int i = 0; i < entries; i++) {
      int at = bytes.position() - start;
      int length = bytes.remaining() < 4 ? -1 : bytes.getInt();
      if (length < 0 || length > bytes.remaining()) {
        throw new PageFormatException(
            "dictionary entry "
                + i
                + " of "
                + entries
                + " at byte "
                + at
                + " of the page: a length of "
                + length
                + " with "
                + bytes.remaining()
                + " bytes left");
      }
      values[i] = new byte[length];
      bytes.get(values[i]);
    }
    return new PageDictionary(null, -1, entries, values);
  }

  int entries() {
    return entries;
  }

  /** Entry {@code id} of a dictionary of variable-length values; not to be written to. */
  byte[] entry(int id) {
    return variable[id];
  }

  /** The length of entry {@code id} in bytes. */
  int length(int id) {
    return fixed != null ? size : variable[id].length;
  }

  /**
   * Writes the fixed-size entries {@code ids[0..n)} back to back to {@code dst} from {@code index},
   * little-endian as {@link #copy(int, ByteBuffer, int)} writes one.
   *
   * @throws PageFormatException for an id outside the dictionary
   */
  void copy(int[] ids, int n, byte[] dst, int index) throws PageFormatException {
    if (size == 8) {
      copyLongs(ids, n, dst, index);
      return;
    }
    ByteBuffer wrapped = ByteBuffer.wrap(dst).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < n; i++) {
      if (ids[i] < 0 || ids[i] >= entries) {
        throw badId(ids[i]);
      }
      copy(ids[i], wrapped, index);
      index += size;
    }
  }

  /**
   * The entries of a dictionary of 4-byte values as ints, exactly as many as its entries, decoded
   * on first use; null for other values. Not to be written to.
   */
  int[] ints() {
    if (size != 4) {
      return null;
    }
    if (ints == null) {
      int[] decoded = new int[entries];
      for (int i = 0; i < entries; i++) {
        decoded[i] = fixed.getInt(i * 4);
      }
      ints = decoded;
    }
    return ints;
  }

  /**
   * {@link #copy(int[], int, byte[], int)} for 8-byte entries (int64 token ids, say): from a table
   * of longs, the stores range-checked once for the block.
   */
  private void copyLongs(int[] ids, int n, byte[] dst, int index) throws PageFormatException {
    long[] values = longs();
    Objects.checkFromIndexSize(0, n, ids.length);
    Objects.checkFromIndexSize(index, (int) Math.min(8L * n, Integer.MAX_VALUE), dst.length);
    long address = Platform.BYTE_ARRAY_OFFSET + index;
    for (int i = 0; i < n; i++, address += 8) {
      int id = ids[i];
      if (id >= values.length || id < 0) {
        throw badId(id);
      }
      long value = values[id];
      Platform.putLong(dst, address, LITTLE_ENDIAN ? value : Long.reverseBytes(value));
    }
  }

  /** The entries of a dictionary of 8-byte values as longs, decoded on first use. */
  private long[] longs() {
    if (longs == null) {
      long[] decoded = new long[entries];
      for (int i = 0; i < entries; i++) {
        decoded[i] = fixed.getLong(i * 8);
      }
      longs = decoded;
    }
    return longs;
  }

  /** The error for dictionary id {@code id}, outside the dictionary. */
  PageFormatException badId(int id) {
    return new PageFormatException(
        "dictionary id " + Integer.toUnsignedString(id) + " of a dictionary of " + entries);
  }

  /**
   * Writes entry {@code id} to {@code dst} at {@code index}; numbers little-endian, as the file
   * holds them and PLAIN pages are copied, whatever {@code dst}'s byte order.
   */
  void copy(int id, ByteBuffer dst, int index) {
    boolean little = dst.order() == ByteOrder.LITTLE_ENDIAN;
    if (fixed == null) {
      dst.put(index, variable[id]);
    } else if (size == 4) {
      int value = fixed.getInt(id * 4);
      dst.putInt(index, little ? value : Integer.reverseBytes(value));
    } else if (size == 8) {
      long value = fixed.getLong(id * 8);
      dst.putLong(index, little ? value : Long.reverseBytes(value));
    } else {
      dst.put(index, fixed, id * size, size);
    }
  }
}
