package dev.stoker.spark.parquet;

import dev.stoker.loader.BatchLayout;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * Up to {@link #capacity()} consecutive rows of a rank's range, off-heap, column after column (row
 * {@code r} of column {@code c} at {@code offset(c) + r * rowBytes(c)}), filled from Spark's column
 * vectors and copied into batches in a given order: the shuffle buffer. All offsets are computed
 * here once.
 */
public final class ShuffleWindow implements AutoCloseable {
  private final HostMemory memory;
  private final int capacity;
  private final int[] offsets;
  private final int[] rowBytes;

  public ShuffleWindow(HostAllocator allocator, List<ColumnSpec> columns, int capacity) {
    this.capacity = capacity;
    this.offsets = new int[columns.size()];
    this.rowBytes = new int[columns.size()];
    long offset = 0;
    for (int c = 0; c < columns.size(); c++) {
      offsets[c] = (int) offset;
      rowBytes[c] = columns.get(c).rowBytes();
      offset = align(offset + (long) rowBytes[c] * capacity);
    }
    this.memory = allocator.allocate((int) offset);
  }

  /** Bytes of a window of {@code capacity} rows of {@code columns}. */
  public static long bytes(List<ColumnSpec> columns, int capacity) {
    long offset = 0;
    for (ColumnSpec column : columns) {
      offset = align(offset + (long) column.rowBytes() * capacity);
    }
    return offset;
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
