package dev.stoker.spark.parquet;

import dev.stoker.loader.BatchLayout;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Up to {@link #capacity()} consecutive rows of a rank's range, off-heap, column after column (row
 * {@code r} of column {@code c} at {@code offset(c) + r * rowBytes(c)}), filled from Spark's column
 * vectors and copied into batches in a given order: the shuffle buffer. All offsets are computed
 * here once.
 *
 * <p>A variable-length column ({@link ColumnSpec#variable()}) takes no room there: its rows are
 * written in order into a byte area of its own that grows as needed (and is kept for the next
 * fill), row {@code r} ending at {@code ends[r]}. With row keys, each row also has its ordinal in
 * the input ({@link #key}). A window without either does no more work than before.
 */
public final class ShuffleWindow implements AutoCloseable {
  /** The first size of a variable-length column's byte area, before its rows are known. */
  private static final int FIRST_AREA_BYTES = 64 << 10;

  private final HostMemory memory;
  private final int capacity;
  private final int[] offsets;
  private final int[] rowBytes;

  /** Per column: its variable-length rows' bytes and where each row ends; null if fixed. */
  private final byte[][] areas;

  private final int[][] ends;
  private final String[] names;

  /** Each row's ordinal in the input, or null when rows are not keyed. */
  private final long[] keys;

  public ShuffleWindow(HostAllocator allocator, List<ColumnSpec> columns, int capacity) {
    this(allocator, columns, capacity, false);
  }

  /**
   * A window of {@code capacity} rows of {@code columns}; with {@code keyed}, it holds each row's
   * ordinal in the input ({@link #setKeys}).
   */
  public ShuffleWindow(
      HostAllocator allocator, List<ColumnSpec> columns, int capacity, boolean keyed) {
    this.capacity = capacity;
    this.offsets = new int[columns.size()];
    this.rowBytes = new int[columns.size()];
    this.areas = new byte[columns.size()][];
    this.ends = new int[columns.size()][];
    this.names = new String[columns.size()];
    long offset = 0;
    for (int c = 0; c < columns.size(); c++) {
      ColumnSpec column = columns.get(c);
      offsets[c] = (int) offset;
      rowBytes[c] = column.rowBytes();
      offset = align(offset + (long) rowBytes[c] * capacity);
      names[c] = column.name();
      if (column.variable()) {
        long expected = Math.min(MAX_AREA_BYTES, column.meanBytes() * capacity);
        areas[c] = new byte[(int) Math.max(Math.min(expected, FIRST_AREA_BYTES), 16)];
        ends[c] = new int[capacity];
      }
    }
    this.keys = keyed ? new long[capacity] : null;
    this.memory = allocator.allocate((int) Math.max(offset, 1));
  }

  /** The most bytes a variable-length column's rows of one window may take. */
  static final int MAX_AREA_BYTES = Integer.MAX_VALUE - 16;

  /**
   * Bytes of a window of {@code capacity} rows of {@code columns}: the fixed columns' block, and
   * the variable-length columns' areas and row ends as the footers' mean row sizes plan them.
   */
  public static long bytes(List<ColumnSpec> columns, int capacity) {
    long offset = 0;
    long variable = 0;
    for (ColumnSpec column : columns) {
      offset = align(offset + (long) column.rowBytes() * capacity);
      if (column.variable()) {
        variable += column.windowRowBytes() * capacity;
      }
    }
    return offset + variable;
  }

  /**
   * Sets row {@code row}'s value of variable-length column {@code column} to {@code length} bytes
   * of {@code src} from {@code at}; rows are set in order from 0 (row 0 starts the area over).
   */
  void putVariable(int column, int row, ByteBuffer src, int at, int length) {
    int start = room(column, row, length);
    src.get(at, areas[column], start, length);
  }

  /** As {@link #putVariable(int, int, ByteBuffer, int, int)}, from an array. */
  void putVariable(int column, int row, byte[] src, int at, int length) {
    int start = room(column, row, length);
    System.arraycopy(src, at, areas[column], start, length);
  }

  /** As {@link #putVariable(int, int, ByteBuffer, int, int)}, from native memory. */
  void putVariable(int column, int row, long address, int length) {
    int start = room(column, row, length);
    org.apache.spark.unsafe.Platform.copyMemory(
        null,
        address,
        areas[column],
        org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET + start,
        length);
  }

  /**
   * Where row {@code row}'s bytes start in the column's area: for a row assembled in place, its
   * bytes written into {@link #areaFor} from there on, then set with {@link #endVariable}.
   */
  int startOf(int column, int row) {
    Objects.checkIndex(row, capacity);
    return row == 0 ? 0 : ends[column][row - 1];
  }

  /**
   * The column's area, grown to hold row {@code row}'s first {@code length} bytes from {@link
   * #startOf}: the array to write them into; a later call may give a new one, holding the same
   * bytes.
   */
  byte[] areaFor(int column, int row, int length) {
    grow(column, row, (long) startOf(column, row) + length);
    return areas[column];
  }

  /** Sets row {@code row} as its {@code length} bytes written in place ({@link #areaFor}). */
  void endVariable(int column, int row, int length) {
    long end = (long) startOf(column, row) + length;
    if (length < 0 || end > areas[column].length) {
      throw new IllegalStateException(
          "row " + row + " of column '" + names[column] + "' ends past the bytes given for it");
    }
    ends[column][row] = (int) end;
  }

  /**
   * Where row {@code row}'s {@code length} bytes start in the column's area, grown to hold them.
   */
  private int room(int column, int row, int length) {
    int start = startOf(column, row);
    long end = (long) start + length;
    grow(column, row, end);
    ends[column][row] = (int) end;
    return start;
  }

  /** Grows the column's area to {@code end} bytes at least, refusing more than it may hold. */
  private void grow(int column, int row, long end) {
    if (end > MAX_AREA_BYTES) {
      throw new RowErrors.BadRow(
          String.format(
              "column '%s': %d rows of a shuffle window hold more than %d bytes (expected: at "
                  + "most %d; lower %s)",
              names[column],
              row + 1,
              MAX_AREA_BYTES,
              MAX_AREA_BYTES,
              SourceOptions.SHUFFLE_BUFFER));
    }
    byte[] area = areas[column];
    if (end > area.length) {
      areas[column] =
          Arrays.copyOf(area, (int) Math.min(MAX_AREA_BYTES, Math.max(end, 2L * area.length)));
    }
  }

  /** Row {@code row}'s bytes of variable-length column {@code column}, as a buffer over them. */
  ByteBuffer variableValue(int column, int row) {
    Objects.checkIndex(row, capacity);
    int[] rowEnds = ends[column];
    int start = row == 0 ? 0 : rowEnds[row - 1];
    return ByteBuffer.wrap(areas[column], start, rowEnds[row] - start);
  }

  /** Whether the window holds each row's ordinal in the input. */
  boolean keyed() {
    return keys != null;
  }

  /** Rows {@code [row, row + rows)} are the input's rows from ordinal {@code first}. */
  void setKeys(int row, int rows, long first) {
    Objects.checkFromIndexSize(row, rows, capacity);
    for (int i = 0; i < rows; i++) {
      keys[row + i] = first < 0 ? -1 : first + i;
    }
  }

  /** Row {@code row}'s ordinal in the input, or -1 if the window holds none. */
  long key(int row) {
    return keys == null ? -1 : keys[row];
  }

  private static long align(long bytes) {
    return (bytes + BatchLayout.ALIGNMENT - 1) & -BatchLayout.ALIGNMENT;
  }

  int capacity() {
    return capacity;
  }

  /**
   * The native address of row {@code row} of column {@code column}, checking that {@code rows} rows
   * from there fit in the window.
   */
  long address(int column, int row, int rows) {
    Objects.checkFromIndexSize(row, rows, capacity);
    return memory.address() + offsets[column] + (long) row * rowBytes[column];
  }

  /**
   * The window's own buffer, for decoders that write rows into it with absolute access (at {@link
   * #offset}); never handed further.
   */
  public ByteBuffer buffer() {
    return memory.bytes();
  }

  /**
   * The byte offset of row {@code row} of column {@code column} in {@link #buffer()}, checking that
   * {@code rows} rows from there fit in the window.
   */
  public int offset(int column, int row, int rows) {
    Objects.checkFromIndexSize(row, rows, capacity);
    return offsets[column] + row * rowBytes[column];
  }

  /**
   * Copies rows of column {@code column} into {@code target}: window rows {@code fromRow, fromRow +
   * 1, ...} in order, or {@code order[fromRow], order[fromRow + 1], ...}. Reads with absolute
   * access only, so that threads may copy different rows at once.
   */
  void copyTo(int column, int[] order, int fromRow, ColumnTarget target) {
    int bytes = rowBytes[column];
    int base = offsets[column];
    if (order == null) {
      Objects.checkFromIndexSize(fromRow, target.rows(), capacity);
      target.put(memory.bytes(), base + fromRow * bytes, target.rows() * bytes);
      return;
    }
    for (int i = 0; i < target.rows(); i++) {
      target.put(memory.bytes(), base + order[fromRow + i] * bytes, bytes);
    }
  }

  /**
   * Rows {@code [0, rows)} of every column, each from its byte 0, as read-only views: for a writer
   * that takes a buffer per column.
   */
  public ByteBuffer[] columns(int rows) {
    Objects.checkFromIndexSize(0, rows, capacity);
    ByteBuffer[] columns = new ByteBuffer[offsets.length];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = memory.bytes().slice(offsets[c], rows * rowBytes[c]).asReadOnlyBuffer();
    }
    return columns;
  }

  @Override
  public void close() {
    memory.close();
  }
}
