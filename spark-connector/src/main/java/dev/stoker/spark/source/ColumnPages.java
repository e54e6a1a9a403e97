package dev.stoker.spark.source;

import dev.stoker.spark.source.SourceColumn.Kind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The pages of one column, chunk after chunk (one per row group), read from the file through a
 * window of a few pages and decompressed into a page buffer, both reused: reading a file this
 * way allocates nothing per page, where Parquet's own reader holds a whole row group and
 * allocates every page. It serves {@link ChunkDecoder}, which is done with a page before it asks
 * for the next: a data page's bytes are valid until the next call. Index pages are passed over.
 */
final class ColumnPages implements PageReader {
  /** Bytes read from the file at once. */
  static final int WINDOW_BYTES = 8 << 20;
  /** The first guess at a page header's size (its statistics make it vary). */
  private static final int HEADER_BYTES = 256;
  /** Room for a chunk's levels and framing beyond its values. */
  private static final int SLACK_BYTES = 64 << 10;
  /** Snappy turns 3 bytes into at most 64: no valid page expands more. */
  private static final int SNAPPY_MAX_RATIO = 22;

  private final FileBytes file;
  private final PageDecompressor decompressor;
  private final String path;
  private final String column;
  private final int bytesPerValue;
  private final boolean verifyChecksums;
  private final CRC32 crc = new CRC32();
  private byte[] window = new byte[0];
  private long windowStart;
  private int windowLength;
  private byte[] pageBytes = new byte[0];
  private CompressionCodecName codec;
  private long next;
  private long end;
  private long bodyAt;
  private long totalValues;
  private long valuesLeft;
  private long maxPageBytes;
  /** Whether the chunk's first page is behind: a dictionary page can only come first. */
  private boolean pastFirst;

  /**
   * Pages of column {@code spec} of file {@code path}, read from {@code file} (shared with the
   * file's other columns).
   */
  ColumnPages(FileBytes file, PageDecompressor decompressor, String path, ColumnSpec spec,
      boolean verifyChecksums) {
    this.file = file;
    this.decompressor = decompressor;
    this.path = path;
    this.column = spec.name();
    // A value's bytes, a length prefix, dictionary ids and levels never take more than this.
    this.bytesPerValue = (spec.kind() == Kind.LIST ? spec.dtype().byteSize() : spec.rowBytes())
        + 8;
    this.verifyChecksums = verifyChecksums;
  }

  /**
   * Moves to the column's next chunk: {@code bytes} bytes from byte {@code start} of the file,
   * holding {@code values} values (level entries) in pages compressed with {@code codec}.
   */
  void start(CompressionCodecName codec, long start, long bytes, long values) {
    this.codec = codec;
    next = start;
    end = start + bytes;
    totalValues = values;
    valuesLeft = totalValues;
    pastFirst = false;
    maxPageBytes = Math.min(Integer.MAX_VALUE - 16,
        Math.max(0, totalValues) * (long) bytesPerValue + SLACK_BYTES);
  }

  @Override
  public long getTotalValueCount() {
    return totalValues;
  }

  @Override
  public DictionaryPage readDictionaryPage() {
    if (pastFirst || next >= end) {
      return null;
    }
    try {
      PageHeader header = header();
      if (header.getType() != PageType.DICTIONARY_PAGE) {
        return null;
      }
      pastFirst = true;
      ByteBuffer bytes = body(header);
      byte[] own = new byte[bytes.remaining()]; // kept for the whole chunk
      bytes.get(own);
      DictionaryPageHeader dictionary = header.getDictionary_page_header();
      count(dictionary.getNum_values());
      return new DictionaryPage(BytesInput.from(own), dictionary.getNum_values(),
          encoding(dictionary.getEncoding()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public DataPage readPage() {
    try {
      while (valuesLeft > 0 && next < end) {
        PageHeader header = header();
        if (header.getType() == PageType.DATA_PAGE) {
          pastFirst = true;
          return v1(header);
        } else if (header.getType() == PageType.DATA_PAGE_V2) {
          pastFirst = true;
          return v2(header);
        } else if (header.getType() == PageType.DICTIONARY_PAGE && pastFirst) {
          throw corrupt("a dictionary page after the first page", null);
        }
        skip(header);
        pastFirst = true;
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private DataPage v1(PageHeader header) throws IOException {
    DataPageHeader page = header.getData_page_header();
    count(page.getNum_values());
    ByteBuffer bytes = body(header);
    valuesLeft -= page.getNum_values();
    return new DataPageV1(input(bytes), page.getNum_values(), header.getUncompressed_page_size(),
        null, encoding(page.getRepetition_level_encoding()),
        encoding(page.getDefinition_level_encoding()), encoding(page.getEncoding()));
  }

  private DataPage v2(PageHeader header) throws IOException {
    DataPageHeaderV2 page = header.getData_page_header_v2();
    count(page.getNum_values());
    int size = header.getCompressed_page_size();
    int reps = page.getRepetition_levels_byte_length();
    int defs = page.getDefinition_levels_byte_length();
    int uncompressed = header.getUncompressed_page_size();
    if (reps < 0 || defs < 0 || (long) reps + defs > Math.min(size, uncompressed)) {
      throw corrupt("a v2 page whose levels (" + reps + " + " + defs + " bytes) do not fit its "
          + size + " bytes", null);
    }
    int at = locate(header);
    int levels = reps + defs;
    boolean compressed = !page.isSetIs_compressed() || page.isIs_compressed();
    ByteBuffer data = decompress(compressed ? codec : CompressionCodecName.UNCOMPRESSED,
        at + levels, size - levels, uncompressed - levels);
    valuesLeft -= page.getNum_values();
    return DataPageV2.uncompressed(page.getNum_rows(), page.getNum_nulls(),
        page.getNum_values(), BytesInput.from(window, at, reps),
        BytesInput.from(window, at + reps, defs), encoding(page.getEncoding()), input(data),
        null);
  }

  private void count(int values) throws IOException {
    if (values < 0) {
      throw corrupt("a page of " + values + " values", null);
    }
  }

  /** The decompressed body of the page of {@code header}. */
  private ByteBuffer body(PageHeader header) throws IOException {
    int at = locate(header);
    return decompress(at, header.getCompressed_page_size(), header.getUncompressed_page_size());
  }

  /**
   * Brings the body of the page of {@code header} into the window, checks its checksum, moves
   * past it, and returns its offset in the window.
   */
  private int locate(PageHeader header) throws IOException {
    int size = header.getCompressed_page_size();
    int uncompressed = header.getUncompressed_page_size();
    if (size < 0 || uncompressed < 0 || uncompressed > maxPageBytes
        || (codec == CompressionCodecName.SNAPPY
            && uncompressed > (long) SNAPPY_MAX_RATIO * size + 64)) {
      throw corrupt("a page header of " + size + " bytes that decompress to " + uncompressed
          + " for " + totalValues + " values in the chunk", null);
    }
    int at = ensure(bodyAt, size);
    next = bodyAt + size;
    if (verifyChecksums && header.isSetCrc()) {
      crc.reset();
      crc.update(window, at, size);
      if ((int) crc.getValue() != header.getCrc()) {
        throw corrupt("a page whose checksum does not match its bytes", null);
      }
    }
    return at;
  }

  private void skip(PageHeader header) throws IOException {
    long size = header.getCompressed_page_size();
    if (size < 0 || bodyAt + size > end) {
      throw corrupt("a page of " + size + " bytes past the end of its column chunk", null);
    }
    next = bodyAt + size;
  }

  private ByteBuffer decompress(int at, int length, int size) throws IOException {
    return decompress(codec, at, length, size);
  }

  private ByteBuffer decompress(CompressionCodecName pageCodec, int at, int length, int size)
      throws IOException {
    try {
      byte[] out = PageDecompressor.usesOutput(pageCodec) ? pageBuffer(size) : pageBytes;
      return decompressor.decompress(pageCodec, window, at, length, size, out);
    } catch (IOException e) {
      throw corrupt("a " + pageCodec + " page that does not decompress: " + e.getMessage(), e);
    }
  }

  private byte[] pageBuffer(int size) {
    if (pageBytes.length < size) {
      pageBytes = new byte[size];
    }
    return pageBytes;
  }

  /** The header of the page at {@code next}; sets {@code bodyAt} to where its body starts. */
  private PageHeader header() throws IOException {
    int want = (int) Math.min(HEADER_BYTES, end - next);
    while (true) {
      int at = ensure(next, want);
      int available = windowLength - at;
      ByteArrayInputStream bytes = new ByteArrayInputStream(window, at, available);
      PageHeader header;
      try {
        header = Util.readPageHeader(bytes);
      } catch (IOException | RuntimeException e) {
        if (next + available >= end) {
          throw corrupt("a page header that cannot be read (" + e.getMessage() + ")", e);
        }
        want = (int) Math.min(Math.min(2L * available, Integer.MAX_VALUE - 16), end - next);
        continue;
      }
      bodyAt = next + (available - bytes.available());
      PageType type = header.getType();
      if (type == null || type == PageType.DATA_PAGE && !header.isSetData_page_header()
          || type == PageType.DATA_PAGE_V2 && !header.isSetData_page_header_v2()
          || type == PageType.DICTIONARY_PAGE && !header.isSetDictionary_page_header()) {
        throw corrupt("a " + type + " page header without its fields", null);
      }
      return header;
    }
  }

  /**
   * Makes the window hold file bytes {@code [position, position + length)}, all within the
   * chunk, and returns the offset of {@code position} in it. The window starts and ends where
   * the file's reads may ({@link FileBytes#alignment()}).
   */
  private int ensure(long position, int length) throws IOException {
    if (position >= windowStart && position + length <= windowStart + windowLength) {
      return (int) (position - windowStart);
    }
    if (position + length > end) {
      throw corrupt("a page of " + length + " bytes past the end of its column chunk", null);
    }
    int alignment = file.alignment();
    long start = position - position % alignment;
    long stop = Math.max(position + length, Math.min(position + WINDOW_BYTES, end));
    stop = Math.min(file.length(), (stop + alignment - 1) / alignment * alignment);
    if (stop < position + length) {
      throw corrupt("a page of " + length + " bytes past the end of the file ("
          + file.length() + " bytes)", null);
    }
    int size = Math.toIntExact(stop - start);
    if (window.length < size) {
      window = new byte[size];
    }
    windowLength = 0;
    try {
      file.readFully(start, window, 0, size);
    } catch (IOException e) {
      throw corrupt("reading " + size + " bytes failed: " + e, e);
    }
    windowStart = start;
    windowLength = size;
    return (int) (position - start);
  }

  private static BytesInput input(ByteBuffer bytes) {
    return bytes.hasArray()
        ? BytesInput.from(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining())
        : BytesInput.from(bytes);
  }

  private static Encoding encoding(org.apache.parquet.format.Encoding encoding) {
    return Encoding.valueOf(encoding.name());
  }

  private IOException corrupt(String what, Throwable cause) {
    return new IOException("column '" + column + "' of file '" + path + "': " + what
        + " at byte " + next + " (expected: a complete, uncorrupted Parquet file; rewrite it "
        + "or read it with Spark's own reader)", cause);
  }
}
