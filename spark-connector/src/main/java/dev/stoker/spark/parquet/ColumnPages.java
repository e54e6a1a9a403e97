package dev.stoker.spark.parquet;

import dev.stoker.spark.parquet.SourceColumn.Kind;
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
 * window of a few pages and decompressed into a page buffer, both reused: reading a file this way
 * allocates nothing per page, where Parquet's own reader holds a whole row group and allocates
 * every page. It serves {@link ChunkDecoder}, which is done with a page before it asks for the
 * next: a data page's bytes are valid until the next call. Index pages are passed over.
 *
 * <p>Nothing a page header declares is trusted: before a byte is allocated or read for a page, its
 * values must fit the values its chunk has left, its compressed bytes the chunk, and its
 * uncompressed size both what its codec can expand those bytes to and what its values can take
 * ({@link #bytesPerValue} each, plus {@link #SLACK_BYTES}). Every failure, a memory shortage
 * included, is an {@link IOException} naming the file, the column and the page's first byte in the
 * file, and never carries an {@link OutOfMemoryError} (Spark ends the executor on one).
 */
public final class ColumnPages implements PageReader {
  /** Bytes read from the file at once. */
  static final int WINDOW_BYTES = 4 << 20;

  /** The first guess at a page header's size (its statistics make it vary). */
  private static final int HEADER_BYTES = 256;

  /** Room for a chunk's levels and framing beyond its values. */
  private static final int SLACK_BYTES = 64 << 10;

  /** The largest array the JVM allocates. */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

  private final FileBytes file;
  private final PageDecompressor decompressor;
  private final String path;
  private final String column;
  private final int bytesPerValue;
  private final boolean verifyChecksums;
  private final CRC32 crc = new CRC32();
  private final PageArrays arrays;
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

  /** Where the current page's header starts in the file. */
  private long pageAt;

  /** Whether the chunk's first page is behind: a dictionary page can only come first. */
  private boolean pastFirst;

  /**
   * Pages of column {@code spec} of file {@code path}, read from {@code file} (shared with the
   * file's other columns).
   */
  ColumnPages(
      FileBytes file,
      PageDecompressor decompressor,
      String path,
      ColumnSpec spec,
      boolean verifyChecksums) {
    this(file, decompressor, path, spec, verifyChecksums, null);
  }

  /**
   * {@link #ColumnPages(FileBytes, PageDecompressor, String, ColumnSpec, boolean)} whose window and
   * page buffer come from {@code arrays} (may be null: allocated) and go back there on {@link
   * #release}.
   */
  ColumnPages(
      FileBytes file,
      PageDecompressor decompressor,
      String path,
      ColumnSpec spec,
      boolean verifyChecksums,
      PageArrays arrays) {
    this.arrays = arrays;
    this.file = file;
    this.decompressor = decompressor;
    this.path = path;
    this.column = spec.name();
    // A value's bytes, a length prefix, dictionary ids and levels never take more than this.
    // A variable-length value may take any size: the codec's bound alone holds.
    this.bytesPerValue =
        spec.variable() && !spec.variableList()
            ? MAX_ARRAY
            : (spec.kind() == Kind.LIST || spec.variableList()
                    ? spec.dtype().byteSize()
                    : spec.rowBytes())
                + 8;
    // bytes the file system's own checksums cover (LocalFileBytes) were checked as they were
    // read: a page checksum over the same bytes would find nothing more
    this.verifyChecksums = verifyChecksums && !file.verifiesEveryByte();
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
    pageAt = start;
  }

  /** Where the header of the page read last starts in the file: the byte errors name. */
  long pageOffset() {
    return pageAt;
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
      // the first header alone: a reader that starts at a depth passes the pages after it unread
      PageHeader header = header(HEADER_BYTES);
      if (header.getType() != PageType.DICTIONARY_PAGE) {
        return null;
      }
      pastFirst = true;
      DictionaryPageHeader dictionary = header.getDictionary_page_header();
      int entries = dictionary.getNum_values();
      if (entries < 0 || entries > totalValues) {
        throw corrupt(
            "a dictionary page of " + entries + " values in a chunk of " + totalValues, null);
      }
      Encoding encoding = encoding(dictionary.getEncoding());
      ByteBuffer bytes = body(header, entries);
      byte[] own = allocate(bytes.remaining()); // kept for the whole chunk
      bytes.get(own);
      return new DictionaryPage(BytesInput.from(own), entries, encoding);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
      throw new UncheckedIOException(unexpected(e));
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
    } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
      throw new UncheckedIOException(unexpected(e));
    }
  }

  /**
   * Passes over the data pages ahead, by their headers alone, while the next holds at most {@code
   * values} values (level entries), a whole number of {@code perRow} (the values of a row, so that
   * a page that splits a row is read), and is not the chunk's last; returns how many were passed.
   * Their bodies are neither read nor decompressed nor checked: a reader that starts at a depth of
   * its row group passes the rows before it this way. The page that would pass {@code values} is
   * left to {@link #readPage}.
   */
  long skipPages(long values, int perRow) {
    try {
      long passed = 0;
      while (valuesLeft > 0 && next < end) {
        long at = next;
        PageHeader header = header(HEADER_BYTES);
        int count;
        if (header.getType() == PageType.DATA_PAGE) {
          count = count(header.getData_page_header().getNum_values());
        } else if (header.getType() == PageType.DATA_PAGE_V2) {
          count = count(header.getData_page_header_v2().getNum_values());
        } else {
          if (header.getType() == PageType.DICTIONARY_PAGE && pastFirst) {
            throw corrupt("a dictionary page after the first page", null);
          }
          skip(header);
          pastFirst = true;
          continue;
        }
        if (passed + count > values || count == valuesLeft || count % perRow != 0) {
          next = at;
          return passed;
        }
        skip(header);
        pastFirst = true;
        valuesLeft -= count;
        passed += count;
      }
      return passed;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
      throw new UncheckedIOException(unexpected(e));
    }
  }

  private DataPage v1(PageHeader header) throws IOException {
    DataPageHeader page = header.getData_page_header();
    int values = count(page.getNum_values());
    Encoding reps = encoding(page.getRepetition_level_encoding());
    Encoding defs = encoding(page.getDefinition_level_encoding());
    Encoding data = encoding(page.getEncoding());
    ByteBuffer bytes = body(header, values);
    valuesLeft -= values;
    return new DataPageV1(
        input(bytes), values, header.getUncompressed_page_size(), null, reps, defs, data);
  }

  private DataPage v2(PageHeader header) throws IOException {
    DataPageHeaderV2 page = header.getData_page_header_v2();
    int values = count(page.getNum_values());
    Encoding encoding = encoding(page.getEncoding());
    int size = header.getCompressed_page_size();
    int reps = page.getRepetition_levels_byte_length();
    int defs = page.getDefinition_levels_byte_length();
    int uncompressed = header.getUncompressed_page_size();
    if (reps < 0 || defs < 0 || (long) reps + defs > Math.min(size, uncompressed)) {
      throw corrupt(
          "a v2 page whose levels ("
              + reps
              + " + "
              + defs
              + " bytes) do not fit its "
              + size
              + " bytes",
          null);
    }
    int at = locate(header, values);
    int levels = reps + defs;
    boolean compressed = !page.isSetIs_compressed() || page.isIs_compressed();
    ByteBuffer data =
        decompress(
            compressed ? codec : CompressionCodecName.UNCOMPRESSED,
            at + levels,
            size - levels,
            uncompressed - levels);
    valuesLeft -= values;
    return DataPageV2.uncompressed(
        page.getNum_rows(),
        page.getNum_nulls(),
        values,
        BytesInput.from(window, at, reps),
        BytesInput.from(window, at + reps, defs),
        encoding,
        input(data),
        null);
  }

  /** The page's number of values, once checked against the values its chunk has left. */
  private int count(int values) throws IOException {
    if (values < 0 || values > valuesLeft) {
      throw corrupt(
          "a page of " + values + " values where its chunk has " + valuesLeft + " left", null);
    }
    return values;
  }

  /** The decompressed body of the page of {@code header}, which holds {@code values} values. */
  private ByteBuffer body(PageHeader header, int values) throws IOException {
    int at = locate(header, values);
    return decompress(at, header.getCompressed_page_size(), header.getUncompressed_page_size());
  }

  /**
   * Brings the body of the page of {@code header}, of {@code values} values, into the window once
   * its sizes are checked, checks its checksum, moves past it, and returns its offset in the
   * window.
   */
  private int locate(PageHeader header, int values) throws IOException {
    int size = header.getCompressed_page_size();
    int uncompressed = header.getUncompressed_page_size();
    long most =
        Math.min(
            Math.min(MAX_ARRAY, PageDecompressor.maxExpansion(codec, size)),
            values * (long) bytesPerValue + SLACK_BYTES);
    if (size < 0 || uncompressed < 0 || uncompressed > most) {
      throw corrupt(
          "a page header of "
              + size
              + " bytes that decompress to "
              + uncompressed
              + " for "
              + values
              + " values (expected: at most "
              + most
              + " bytes for "
              + codec
              + " and "
              + bytesPerValue
              + " bytes a value)",
          null);
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
    byte[] out = PageDecompressor.usesOutput(pageCodec) ? pageBuffer(size) : pageBytes;
    try {
      return decompressor.decompress(pageCodec, window, at, length, size, out);
    } catch (IOException e) {
      throw corrupt("a " + pageCodec + " page that does not decompress: " + e.getMessage(), e);
    }
  }

  private byte[] pageBuffer(int size) throws IOException {
    if (pageBytes.length < size) {
      byte[] old = pageBytes;
      pageBytes = new byte[0];
      giveBack(old);
      pageBytes = arrayOf(size);
    }
    return pageBytes;
  }

  /** An array of at least {@code size} bytes: one handed on by an earlier reader, or a new one. */
  private byte[] arrayOf(int size) throws IOException {
    byte[] kept = arrays == null ? null : arrays.take(size);
    return kept != null ? kept : allocate(size);
  }

  private void giveBack(byte[] array) {
    if (arrays != null) {
      arrays.give(array);
    }
  }

  /**
   * Hands the window and the page buffer on to the next reader (with {@code arrays}); the pages
   * read before are not read again. For when the reader closes.
   */
  void release() {
    byte[] oldWindow = window;
    byte[] oldPage = pageBytes;
    window = new byte[0];
    windowStart = 0;
    windowLength = 0;
    pageBytes = new byte[0];
    giveBack(oldWindow);
    giveBack(oldPage);
  }

  /**
   * A new array of {@code size} bytes, sizes checked before: a JVM short of memory for it is an
   * error of this page that does not carry the {@link OutOfMemoryError}.
   */
  private byte[] allocate(int size) throws IOException {
    try {
      return new byte[size];
    } catch (OutOfMemoryError e) {
      throw corrupt(
          "a page that needs "
              + size
              + " bytes, more than the JVM has free ("
              + e.getMessage()
              + ")",
          null);
    }
  }

  /** The header of the page at {@code next}; sets {@code bodyAt} to where its body starts. */
  private PageHeader header() throws IOException {
    return header(WINDOW_BYTES);
  }

  /** {@link #header()}, reading at least {@code ahead} bytes from it where the window lacks it. */
  private PageHeader header(int ahead) throws IOException {
    pageAt = next;
    int want = (int) Math.min(HEADER_BYTES, end - next);
    while (true) {
      int at = ensure(next, want, ahead);
      int available = windowLength - at;
      ByteArrayInputStream bytes = new ByteArrayInputStream(window, at, available);
      PageHeader header;
      try {
        header = Util.readPageHeader(bytes);
      } catch (IOException | RuntimeException e) {
        if (next + available >= end) {
          throw corrupt("a page header that cannot be read (" + e.getMessage() + ")", e);
        }
        want = (int) Math.min(Math.min(2L * available, MAX_ARRAY - WINDOW_BYTES), end - next);
        continue;
      }
      bodyAt = next + (available - bytes.available());
      PageType type = header.getType();
      if (type == null
          || type == PageType.DATA_PAGE && !header.isSetData_page_header()
          || type == PageType.DATA_PAGE_V2 && !header.isSetData_page_header_v2()
          || type == PageType.DICTIONARY_PAGE && !header.isSetDictionary_page_header()) {
        throw corrupt("a " + type + " page header without its fields", null);
      }
      return header;
    }
  }

  /**
   * Makes the window hold file bytes {@code [position, position + length)}, all within the chunk,
   * and returns the offset of {@code position} in it. The window starts and ends where the file's
   * reads may ({@link FileBytes#alignment()}).
   */
  private int ensure(long position, int length) throws IOException {
    return ensure(position, length, WINDOW_BYTES);
  }

  /** {@link #ensure(long, int)}, reading at least {@code ahead} bytes from {@code position}. */
  private int ensure(long position, int length, int ahead) throws IOException {
    if (position >= windowStart && position + length <= windowStart + windowLength) {
      return (int) (position - windowStart);
    }
    if (position + length > end) {
      throw corrupt("a page of " + length + " bytes past the end of its column chunk", null);
    }
    int alignment = file.alignment();
    long start = position - position % alignment;
    long stop = Math.max(position + length, Math.min(position + ahead, end));
    stop = Math.min(file.length(), (stop + alignment - 1) / alignment * alignment);
    if (stop < position + length) {
      throw corrupt(
          "a page of " + length + " bytes past the end of the file (" + file.length() + " bytes)",
          null);
    }
    if (stop - start > MAX_ARRAY) {
      throw corrupt("a page of " + length + " bytes, more than an array holds", null);
    }
    int size = (int) (stop - start);
    if (window.length < size) {
      byte[] old = window;
      window = new byte[0]; // the old window's memory is free for the new one
      windowLength = 0;
      windowStart = 0;
      giveBack(old);
      window = arrayOf(size);
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

  private Encoding encoding(org.apache.parquet.format.Encoding encoding) throws IOException {
    if (encoding == null) {
      throw corrupt("a page header without an encoding it names", null);
    }
    return Encoding.valueOf(encoding.name());
  }

  /** A failure no check foresaw, as an error of the page; an Error is not kept as its cause. */
  private IOException unexpected(Throwable e) {
    return corrupt("a page that cannot be read (" + e + ")", e instanceof Error ? null : e);
  }

  private IOException corrupt(String what, Throwable cause) {
    return corrupt(column, path, pageAt, what, cause);
  }

  /** The error for a corrupt page of {@code column} of file {@code path} at byte {@code at}. */
  static IOException corrupt(String column, String path, long at, String what, Throwable cause) {
    return new IOException(
        "column '"
            + column
            + "' of file '"
            + path
            + "': "
            + what
            + " in the page at byte "
            + at
            + " (expected: a complete, uncorrupted Parquet file; "
            + "rewrite it or read it with Spark's own reader)",
        cause);
  }
}
