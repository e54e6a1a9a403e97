package dev.stoker.spark.source;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.parquet.column.page.DictionaryPage;

/**
 * A column chunk's dictionary, decoded once: fixed-size values (numbers, fixed-length bytes) back
 * to back in one buffer, variable-length bytes as arrays. Copies entry {@code id} to a window.
 */
final class PageDictionary {
  private final ByteBuffer fixed;
  private final int size;
  private final byte[][] variable;

  private PageDictionary(ByteBuffer fixed, int size, byte[][] variable) {
    this.fixed = fixed;
    this.size = size;
    this.variable = variable;
  }

  /**
   * Decodes {@code page} (PLAIN-encoded values): {@code size} bytes each, or length-prefixed
   * bytes when {@code size} is -1.
   */
  static PageDictionary of(DictionaryPage page, int size) throws IOException {
    ByteBuffer bytes = page.getBytes().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    int entries = page.getDictionarySize();
    if (size >= 0) {
      if (bytes.remaining() < (long) entries * size) {
        throw new IllegalStateException("dictionary page of " + entries + " values of " + size
            + " bytes holds only " + bytes.remaining() + " bytes");
      }
      return new PageDictionary(bytes.slice().order(ByteOrder.LITTLE_ENDIAN), size, null);
    }
    byte[][] values = new byte[entries][];
    for (int i = 0; i < entries; i++) {
      values[i] = new byte[bytes.getInt()];
      bytes.get(values[i]);
    }
    return new PageDictionary(null, -1, values);
  }

  int entries() {
    return fixed != null ? fixed.capacity() / size : variable.length;
  }

  /** The length of entry {@code id} in bytes. */
  int length(int id) {
    return fixed != null ? size : variable[id].length;
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
