package dev.stoker.spark.parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.List;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;

/** Parquet pages made by hand, encoded with Parquet's own level encoder. */
final class Pages {
  private Pages() {}

  /** {@code values} in the RLE / bit-packing hybrid encoding, {@code bitWidth} bits each. */
  static byte[] hybrid(int bitWidth, int... values) {
    RunLengthBitPackingHybridEncoder encoder =
        new RunLengthBitPackingHybridEncoder(
            bitWidth, 64, 1 << 20, HeapByteBufferAllocator.getInstance());
    try {
      for (int value : values) {
        encoder.writeInt(value);
      }
      return encoder.toBytes().toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      encoder.close();
    }
  }

  /**
   * A data page v1: repetition levels (if {@code reps} is not null), definition levels (if {@code
   * defs} is not null), each length-prefixed, then {@code values} encoded {@code encoding}.
   */
  static DataPageV1 v1(
      int repBits, int[] reps, int defBits, int[] defs, byte[] values, Encoding encoding) {
    byte[] rep = reps == null ? new byte[0] : hybrid(repBits, reps);
    byte[] def = defs == null ? new byte[0] : hybrid(defBits, defs);
    ByteBuffer page =
        ByteBuffer.allocate(
                (reps == null ? 0 : 4 + rep.length)
                    + (defs == null ? 0 : 4 + def.length)
                    + values.length)
            .order(ByteOrder.LITTLE_ENDIAN);
    if (reps != null) {
      page.putInt(rep.length).put(rep);
    }
    if (defs != null) {
      page.putInt(def.length).put(def);
    }
    page.put(values);
    int count = defs != null ? defs.length : reps != null ? reps.length : -1;
    return new DataPageV1(
        BytesInput.from(page.array()),
        count,
        page.capacity(),
        null,
        Encoding.RLE,
        Encoding.RLE,
        encoding);
  }

  static byte[] floats(float... values) {
    ByteBuffer bytes = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (float value : values) {
      bytes.putFloat(value);
    }
    return bytes.array();
  }

  static byte[] ints(int... values) {
    ByteBuffer bytes = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (int value : values) {
      bytes.putInt(value);
    }
    return bytes.array();
  }

  /** Dictionary ids: their bit width, then the ids in the hybrid encoding. */
  static byte[] ids(int bitWidth, int... ids) {
    byte[] encoded = hybrid(bitWidth, ids);
    byte[] page = new byte[encoded.length + 1];
    page[0] = (byte) bitWidth;
    System.arraycopy(encoded, 0, page, 1, encoded.length);
    return page;
  }

  /** A page reader handing out {@code pages} in turn after {@code dictionary} (or none). */
  static PageReader reader(DictionaryPage dictionary, List<DataPage> pages) {
    ArrayDeque<DataPage> left = new ArrayDeque<>(pages);
    return new PageReader() {
      @Override
      public DictionaryPage readDictionaryPage() {
        return dictionary;
      }

      @Override
      public long getTotalValueCount() {
        return pages.stream().mapToLong(DataPage::getValueCount).sum();
      }

      @Override
      public DataPage readPage() {
        return left.poll();
      }
    };
  }

  @SuppressWarnings("deprecation") // PLAIN_DICTIONARY: how v1 writers mark dictionary pages
  static DictionaryPage dictionary(byte[] plainValues, int entries) {
    return new DictionaryPage(BytesInput.from(plainValues), entries, Encoding.PLAIN_DICTIONARY);
  }
}
