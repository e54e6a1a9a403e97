package dev.stoker.spark.parquet;

import dev.stoker.spark.parquet.SourceColumn.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Decodes one column of one row group of a tensor column straight into a shuffle window, page by
 * page: levels checked run by run by a {@link LevelCheck}, PLAIN values copied in one block per
 * page, dictionary ids looked up. Handles data pages v1 and v2 with PLAIN and dictionary encodings,
 * the encodings planning lets through (see {@link ParquetFile#decodable}). A variable-length list
 * of integers is assembled entry by entry from its levels, each row's values put into the window's
 * byte area when the entry starting the next row (or the chunk's end) shows where it ends.
 *
 * <p>Every length and run a page declares is checked against the page's bytes before it is used. A
 * page that does not hold what it says is an {@link IOException} naming the file, the column and
 * the page's byte in the file, whatever went wrong (no bare runtime exception and no {@link
 * OutOfMemoryError} comes out); a row the file holds but the column cannot take (a null, another
 * length) is a {@link RowErrors.BadRow}.
 */
public final class ChunkDecoder {
  private final ColumnSpec column;
  private final PageReader pages;
  private final String path;
  private final long firstRow;
  private final int maxRep;
  private final int maxDef;
  private final LevelCheck levels;
  private final int perRow;
  private final int valueBytes;
  private final boolean lengthPrefixed;
  private final PageDictionary dictionary;

  /** Whether the column's rows are bytes of any length, decoded into a window's byte area. */
  private final boolean variable;

  /** Whether the rows are lists of integers of any length, assembled entry by entry. */
  private final boolean variableList;

  /** Dictionary ids decoded at once. */
  private static final int ID_BLOCK = 4096;

  private int[] blockIds;

  /**
   * The repetition level of the page's next entry, read ahead to see whether it starts a row (it is
   * not taken yet), or -1.
   */
  private int nextRep = -1;

  /** List rows started so far in the chunk. */
  private long listRows;

  /** Where {@link #readVariable} puts values: a window's column and its next row; else null. */
  private ShuffleWindow target;

  private int targetColumn;
  private int targetRow;

  /** Index of the next value (level entry) in the column chunk. */
  private long value;

  private int pageLeft;
  private HybridDecoder reps;
  private HybridDecoder defs;
  private HybridDecoder ids;
  private ByteBuffer values;

  /**
   * @param firstRow the index in file {@code path} of the row group's first row
   */
  ChunkDecoder(
      ColumnSpec column,
      ColumnDescriptor descriptor,
      MessageType schema,
      PageReader pages,
      String path,
      long firstRow)
      throws IOException {
    this.column = column;
    this.pages = pages;
    this.path = path;
    this.firstRow = firstRow;
    this.maxRep = descriptor.getMaxRepetitionLevel();
    this.maxDef = descriptor.getMaxDefinitionLevel();
    this.perRow = column.kind() == Kind.LIST ? column.elements() : 1;
    this.levels = new LevelCheck(column, descriptor, schema, path, firstRow);
    this.variable = column.variable();
    this.variableList = column.variableList();
    this.valueBytes =
        column.kind() == Kind.LIST || variableList ? column.dtype().byteSize() : column.rowBytes();
    this.lengthPrefixed =
        descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY;
    PageDictionary read = null;
    try {
      DictionaryPage page = pages.readDictionaryPage();
      read = page == null ? null : PageDictionary.of(page, lengthPrefixed ? -1 : valueBytes);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (PageFormatException e) {
      throw corrupt(e.getMessage(), e);
    } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
      throw unexpected(e);
    }
    this.dictionary = read;
  }

  /**
   * Decodes the next {@code rows} rows into {@code dst} from byte {@code index}, {@code
   * column.rowBytes()} per row; skips them when {@code dst} is null (levels checked all the same).
   *
   * @throws IOException for a page that does not hold what it says, naming the file, the column and
   *     the page's byte
   * @throws RowErrors.BadRow for a null or a row of another length, naming its row
   */
  void read(int rows, ByteBuffer dst, int index) throws IOException {
    decodeOrPass(rows, dst, index, false);
  }

  /**
   * Passes over the next {@code rows} rows. Of a column of one value per row or a fixed number, the
   * rest of the current page is decoded and checked, then whole pages are passed over by their
   * headers ({@link ColumnPages#skipPages}; their rows are another reader's), and the rows left
   * decoded and checked; a variable-length list's rows are walked entry by entry, their levels
   * checked and their values skipped (not looked up). Errors as {@link #read}.
   */
  void pass(int rows) throws IOException {
    decodeOrPass(rows, null, 0, true);
  }

  /** {@link #read}, or with {@code passPages} {@link #pass}. */
  private void decodeOrPass(int rows, ByteBuffer dst, int index, boolean passPages)
      throws IOException {
    try {
      if (variableList) {
        decodeList(rows);
      } else if (passPages && pages instanceof ColumnPages columnPages) {
        passValues((long) rows * perRow, columnPages);
      } else {
        decode(rows, dst, index);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (PageFormatException e) {
      throw corrupt(e.getMessage(), e);
    } catch (RowErrors.BadRow e) {
      throw e;
    } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
      throw unexpected(e);
    }
  }

  /** Passes over the next {@code wanted} values, whole pages of them by their headers. */
  private void passValues(long wanted, ColumnPages columnPages) throws IOException {
    long inPage = Math.min(pageLeft, wanted);
    decodeValues(inPage, null, 0);
    wanted -= inPage;
    if (wanted > 0) {
      long skipped = columnPages.skipPages(wanted, perRow);
      value += skipped;
      wanted -= skipped;
    }
    decodeValues(wanted, null, 0);
  }

  /**
   * Decodes the next {@code rows} rows of a variable-length column into column {@code column} of
   * {@code window}, from row {@code atRow}; errors as {@link #read}.
   */
  void readVariable(int rows, ShuffleWindow window, int column, int atRow) throws IOException {
    target = window;
    targetColumn = column;
    targetRow = atRow;
    try {
      read(rows, null, 0);
    } finally {
      target = null;
    }
  }

  /** Where errors point: the current page's first byte in the file, where it is known. */
  private long pageOffset() {
    return pages instanceof ColumnPages columnPages ? columnPages.pageOffset() : -1;
  }

  private IOException corrupt(String what, Throwable cause) {
    return ColumnPages.corrupt(column.name(), path, pageOffset(), what, cause);
  }

  /** A failure no check foresaw (a bug, or memory short); an Error is not kept as the cause. */
  private IOException unexpected(Throwable e) {
    return corrupt("a page that cannot be decoded (" + e + ")", e instanceof Error ? null : e);
  }

  private void decode(int rows, ByteBuffer dst, int index) throws IOException {
    decodeValues((long) rows * perRow, dst, index);
  }

  /** Decodes the next {@code wanted} values into {@code dst} from byte {@code index}. */
  private void decodeValues(long wanted, ByteBuffer dst, int index) throws IOException {
    while (wanted > 0) {
      if (pageLeft == 0) {
        nextPage();
      }
      int n = (int) Math.min(pageLeft, wanted);
      levels.check(reps, defs, value, n);
      copyValues(n, dst, index);
      index += n * valueBytes;
      value += n;
      pageLeft -= n;
      wanted -= n;
    }
  }

  /**
   * Decodes the next {@code rows} rows of a variable-length list, run by run of the page's levels:
   * a list's entries after its first are mostly one run of equal repetition levels and one of the
   * highest definition level, each taken in one step, the values of the entries taken copied (or
   * looked up) at once. A row ends at the entry that starts the next (read ahead, kept for the next
   * call) or at the chunk's end. An empty list is a row of no values.
   */
  private void decodeList(int rows) throws IOException {
    for (int row = 0; row < rows; row++) {
      if (!pageWithValues()) {
        throw new PageFormatException(
            "the column chunk ended after "
                + listRows
                + " rows, before the rows its row group holds");
      }
      if (peekRep() != 0) {
        throw new PageFormatException(
            "value " + value + " of the chunk goes on with a row where a row should start");
      }
      nextRep = -1;
      listRows++;
      int bytes = appendValues(0, takeDefs(1, true));
      pageLeft--;
      value++;
      putRow(restOfRow(bytes));
    }
  }

  /**
   * Takes the entries that go on with the row begun, up to the entry that starts the next row (read
   * ahead, not taken) or the chunk's end, across pages; returns the row's bytes so far. A run of
   * repeated levels is taken in one step, whatever its length.
   */
  private int restOfRow(int bytes) throws IOException {
    while (pageWithValues()) {
      int n;
      if (nextRep < 0
          && reps != null
          && LevelCheck.available(reps, "repetition") > 0
          && reps.rle()) {
        int rep = reps.value();
        if (rep == 0) {
          return bytes;
        }
        levels.checkRep(rep);
        n = Math.min(reps.available(), pageLeft);
        reps.skip(n);
      } else {
        int rep = peekRep();
        if (rep == 0) {
          return bytes;
        }
        levels.checkRep(rep);
        nextRep = -1;
        n = 1;
      }
      bytes = appendValues(bytes, takeDefs(n, false));
      pageLeft -= n;
      value += n;
    }
    return bytes;
  }

  /** The repetition level of the page's next entry, read ahead (not taken). */
  private int peekRep() throws PageFormatException {
    if (nextRep < 0) {
      nextRep = reps == null ? 0 : nextLevel(reps, "repetition");
    }
    return nextRep;
  }

  private static int nextLevel(HybridDecoder levels, String what) throws PageFormatException {
    LevelCheck.available(levels, what);
    return levels.next();
  }

  /**
   * Takes the definition levels of the page's next {@code n} entries of the row being assembled
   * ({@code first}: the one that starts it) and returns how many hold a value: a run of the highest
   * level in one step, any other level checked entry by entry.
   */
  private int takeDefs(int n, boolean first) throws PageFormatException {
    if (defs == null) {
      return n;
    }
    int present = 0;
    while (n > 0) {
      int k = Math.min(LevelCheck.available(defs, "definition"), n);
      if (defs.rle() && defs.value() == maxDef) {
        present += k;
        defs.skip(k);
      } else {
        for (int i = 0; i < k; i++) {
          if (levels.listEntry(defs.next(), first, listRow())) {
            present++;
          }
          first = false;
        }
      }
      first = false;
      n -= k;
    }
    return present;
  }

  /** The index in the file of the list row being assembled. */
  private long listRow() {
    return firstRow + listRows - 1;
  }

  /**
   * Whether a page with values is at hand, reading the next ones while needed; false at the end.
   */
  private boolean pageWithValues() throws IOException {
    while (pageLeft == 0) {
      if (!tryNextPage()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Appends the next {@code n} values to the row being assembled, {@code bytes} long so far, in
   * place in the target window's area; where the row is passed over, they are only skipped.
   */
  private int appendValues(int bytes, int n) throws IOException {
    long total = bytes + (long) n * valueBytes;
    if (total > ShuffleWindow.MAX_AREA_BYTES / 2) {
      throw new PageFormatException(
          "a list of more than " + ShuffleWindow.MAX_AREA_BYTES / 2 + " bytes in one row");
    }
    int length = (int) total - bytes;
    if (target == null) {
      skipValues(n, length);
      return bytes + length;
    }
    byte[] dst = target.areaFor(targetColumn, targetRow, bytes + length);
    int at = target.startOf(targetColumn, targetRow) + bytes;
    int[] table = ids == null ? null : dictionary.ints();
    if (table != null) {
      if (ids.lookUp(table, n, dst, at, idBlock()) < n) {
        throw new PageFormatException("the dictionary ids of a page end before its values");
      }
    } else if (ids != null) {
      int[] block = idBlock();
      for (int done = 0; done < n; ) {
        int k = Math.min(block.length, n - done);
        if (ids.read(block, 0, k) < k) {
          throw new PageFormatException("the dictionary ids of a page end before its values");
        }
        dictionary.copy(block, k, dst, at + done * valueBytes);
        done += k;
      }
    } else {
      checkValueBytes(n, length);
      values.get(values.position(), dst, at, length);
      values.position(values.position() + length);
    }
    return bytes + length;
  }

  /** Checks that the page holds the {@code length} bytes of the next {@code n} PLAIN values. */
  private void checkValueBytes(int n, int length) throws PageFormatException {
    if (values.remaining() < length) {
      throw new PageFormatException(
          "a page holds "
              + values.remaining()
              + " bytes where "
              + n
              + " values of the chunk from value "
              + value
              + " should be");
    }
  }

  /**
   * Passes over the next {@code n} values of a list, {@code length} bytes, without reading them.
   */
  private void skipValues(int n, int length) throws PageFormatException {
    if (ids != null) {
      while (n > 0) {
        int k = Math.min(ids.available(), n);
        if (k == 0) {
          throw new PageFormatException("the dictionary ids of a page end before its values");
        }
        ids.skip(k);
        n -= k;
      }
    } else {
      checkValueBytes(n, length);
      values.position(values.position() + length);
    }
  }

  /** Ends the row assembled, {@code bytes} long, in the target window (or skips it). */
  private void putRow(int bytes) {
    if (target != null) {
      target.endVariable(targetColumn, targetRow++, bytes);
    }
  }

  private long row(long valueIndex) {
    return firstRow + valueIndex / perRow;
  }

  private void nextPage() throws IOException {
    if (!tryNextPage()) {
      throw new PageFormatException(
          "the column chunk ended after "
              + value
              + " values, before "
              + "the rows its row group holds");
    }
  }

  /** Starts the chunk's next data page; false at the chunk's end. */
  private boolean tryNextPage() throws IOException {
    DataPage page;
    try {
      page = pages.readPage();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    if (page == null) {
      return false;
    }
    pageLeft = page.getValueCount();
    try {
      page.accept(
          new DataPage.Visitor<Void>() {
            @Override
            public Void visit(DataPageV1 v1) {
              try {
                readPageV1(v1);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              return null;
            }

            @Override
            public Void visit(DataPageV2 v2) {
              try {
                readPageV2(v2);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              return null;
            }
          });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return true;
  }

  private void readPageV1(DataPageV1 page) throws IOException {
    ByteBuffer bytes = bytes(page.getBytes());
    int at = bytes.position();
    if (maxRep > 0) {
      requireRle(page.getRlEncoding(), "repetition");
      int length = levelsLength(bytes, at, "repetition");
      reps = new HybridDecoder(range(bytes, at + 4, length), HybridDecoder.bitWidth(maxRep));
      at += 4 + length;
    }
    if (maxDef > 0) {
      requireRle(page.getDlEncoding(), "definition");
      int length = levelsLength(bytes, at, "definition");
      defs = new HybridDecoder(range(bytes, at + 4, length), HybridDecoder.bitWidth(maxDef));
      at += 4 + length;
    }
    startValues(range(bytes, at, bytes.limit() - at), page.getValueEncoding());
  }

  /** The length of the levels at {@code at} of a v1 page, once checked against its bytes. */
  private static int levelsLength(ByteBuffer bytes, int at, String levels)
      throws PageFormatException {
    long left = bytes.limit() - (long) at - 4;
    int length = left < 0 ? -1 : bytes.getInt(at);
    if (left < 0 || length < 0 || length > left) {
      throw new PageFormatException(
          "the "
              + levels
              + " levels of a page say "
              + length
              + " bytes where "
              + Math.max(left, 0)
              + " are left, at byte "
              + (at - bytes.position())
              + " of its "
              + bytes.remaining()
              + " bytes");
    }
    return length;
  }

  private void readPageV2(DataPageV2 page) throws IOException {
    if (page.isCompressed()) {
      throw new IllegalStateException(
          "column '"
              + column.name()
              + "' of file '"
              + path
              + "': a data page v2 came compressed from the page reader");
    }
    reps =
        maxRep > 0
            ? new HybridDecoder(bytes(page.getRepetitionLevels()), HybridDecoder.bitWidth(maxRep))
            : null;
    defs =
        maxDef > 0
            ? new HybridDecoder(bytes(page.getDefinitionLevels()), HybridDecoder.bitWidth(maxDef))
            : null;
    startValues(bytes(page.getData()), page.getDataEncoding());
  }

  @SuppressWarnings("deprecation") // PLAIN_DICTIONARY: how v1 writers mark dictionary pages
  private void startValues(ByteBuffer data, Encoding encoding) throws IOException {
    if (encoding == Encoding.PLAIN) {
      values = data;
      ids = null;
    } else if (encoding == Encoding.PLAIN_DICTIONARY || encoding == Encoding.RLE_DICTIONARY) {
      if (dictionary == null) {
        throw new PageFormatException("a dictionary-encoded page without a dictionary page");
      }
      int bitWidth = data.hasRemaining() ? data.get(data.position()) & 0xff : -1;
      if (bitWidth < 0 || bitWidth > 32) {
        throw new PageFormatException(
            "dictionary ids of " + bitWidth + " bits (expected: 0 to " + "32)");
      }
      ids = new HybridDecoder(range(data, data.position() + 1, data.remaining() - 1), bitWidth);
      values = null;
    } else {
      throw new PageFormatException(
          "values encoded " + encoding + " (expected: PLAIN or a " + "dictionary)");
    }
  }

  private void requireRle(Encoding encoding, String levels) throws PageFormatException {
    if (encoding != Encoding.RLE) {
      throw new PageFormatException(
          levels
              + " levels encoded "
              + encoding
              + " (expected: RLE; "
              + "files this old can be rewritten with Spark)");
    }
  }

  private static ByteBuffer bytes(BytesInput input) throws IOException {
    return input.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
  }

  private static ByteBuffer range(ByteBuffer bytes, int from, int length) {
    return bytes.duplicate().limit(from + length).position(from).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Copies (or skips) the next {@code n} values, all present. */
  private void copyValues(int n, ByteBuffer dst, int index) throws IOException {
    if (variable) {
      if (ids != null) {
        copyVariableIds(n);
      } else {
        copyVariablePlain(n);
      }
    } else if (ids != null) {
      copyIds(n, dst, index);
    } else if (lengthPrefixed) {
      copyLengthPrefixed(n, dst, index);
    } else {
      long bytes = (long) n * valueBytes;
      if (values.remaining() < bytes) {
        throw new PageFormatException(
            "a page holds " + values.remaining() + " bytes of values, " + bytes + " expected");
      }
      if (dst != null) {
        dst.put(index, values, values.position(), (int) bytes);
      }
      values.position(values.position() + (int) bytes);
    }
  }

  private void copyIds(int n, ByteBuffer dst, int index) throws IOException {
    long v = value;
    int[] block = idBlock();
    for (int left = n; left > 0; ) {
      int k = ids.read(block, 0, Math.min(left, block.length));
      if (k == 0) {
        throw new PageFormatException("the dictionary ids of a page end before its values");
      }
      for (int i = 0; i < k; i++) {
        int id = check(block[i]);
        if (dictionary.length(id) != valueBytes) {
          throw RowErrors.wrongLength(
              column, Integer.toString(dictionary.length(id)), row(v + i), path);
        }
        if (dst != null) {
          dictionary.copy(id, dst, index);
        }
        index += valueBytes;
      }
      v += k;
      left -= k;
    }
  }

  /** The array dictionary ids are decoded into, a block at a time. */
  private int[] idBlock() {
    if (blockIds == null) {
      blockIds = new int[ID_BLOCK];
    }
    return blockIds;
  }

  /** Variable-length values by dictionary id, into the target window (or skipped). */
  private void copyVariableIds(int n) throws IOException {
    for (int left = n; left > 0; ) {
      int k = Math.min(ids.available(), left);
      if (k == 0) {
        throw new PageFormatException("the dictionary ids of a page end before its values");
      }
      for (int i = 0; i < k; i++) {
        int id = check(ids.next());
        if (target != null) {
          byte[] entry = dictionary.entry(id);
          target.putVariable(targetColumn, targetRow++, entry, 0, entry.length);
        }
      }
      left -= k;
    }
  }

  /** Length-prefixed (PLAIN) variable-length values, into the target window (or skipped). */
  private void copyVariablePlain(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      int length = values.remaining() < 4 ? -1 : values.getInt();
      if (length < 0 || length > values.remaining()) {
        throw new PageFormatException(
            "value "
                + (value + i)
                + " of the chunk: a length of "
                + length
                + " where the page has "
                + values.remaining()
                + " bytes left");
      }
      if (target != null) {
        target.putVariable(targetColumn, targetRow++, values, values.position(), length);
      }
      values.position(values.position() + length);
    }
  }

  private int check(int id) throws PageFormatException {
    if (id < 0 || id >= dictionary.entries()) {
      throw new PageFormatException(
          "dictionary id "
              + Integer.toUnsignedString(id)
              + " of a "
              + "dictionary of "
              + dictionary.entries());
    }
    return id;
  }

  private void copyLengthPrefixed(int n, ByteBuffer dst, int index) throws IOException {
    for (int i = 0; i < n; i++) {
      if (values.remaining() < 4) {
        throw new PageFormatException(
            "a page holds "
                + values.remaining()
                + " bytes where the "
                + "length of value "
                + (value + i)
                + " of the chunk should be");
      }
      int length = values.getInt();
      if (length != valueBytes && (length < 0 || length > values.remaining())) {
        throw new PageFormatException(
            "a value of " + length + " bytes where the page has " + values.remaining() + " left");
      }
      if (length != valueBytes) {
        throw RowErrors.wrongLength(column, Integer.toString(length), row(value + i), path);
      }
      if (values.remaining() < length) {
        throw new PageFormatException(
            "a value of " + length + " bytes where the page has " + values.remaining() + " left");
      }
      if (dst != null) {
        dst.put(index, values, values.position(), length);
      }
      values.position(values.position() + length);
      index += length;
    }
  }
}
