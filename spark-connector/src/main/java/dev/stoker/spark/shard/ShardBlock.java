package dev.stoker.spark.shard;

import java.io.Serializable;

/**
 * Consecutive rows {@code firstRow .. firstRow + rows - 1} of one rank's shard, one array per
 * column, each row's values raw and in native order where the batch wants them. Blocks are how rows
 * travel: built on the executor that reads them, shuffled to their rank when needed, and written to
 * the shard there. Fill a block's columns, then count the rows with {@link #added}.
 */
public final class ShardBlock implements Serializable {
  private static final long serialVersionUID = 1L;

  private final long firstRow;
  private final int capacity;
  private final byte[][] columns;
  private int rows;

  private ShardBlock(long firstRow, int capacity, byte[][] columns, int rows) {
    this.firstRow = firstRow;
    this.capacity = capacity;
    this.columns = columns;
    this.rows = rows;
  }

  /** An empty block with room for {@code capacity} rows, the first at row {@code firstRow}. */
  public static ShardBlock allocate(ShardLayout layout, long firstRow, int capacity) {
    if (firstRow < 0 || capacity <= 0) {
      throw new IllegalArgumentException(
          "block: first row "
              + firstRow
              + ", capacity "
              + capacity
              + " (expected: first row >= 0, capacity > 0)");
    }
    byte[][] columns = new byte[layout.columns()][];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = new byte[Math.multiplyExact(capacity, layout.rowBytes(c))];
    }
    return new ShardBlock(firstRow, capacity, columns, 0);
  }

  public long firstRow() {
    return firstRow;
  }

  public int rows() {
    return rows;
  }

  public int capacity() {
    return capacity;
  }

  public boolean isFull() {
    return rows == capacity;
  }

  /** The array of {@code column}; row {@code r} starts at {@code r * rowBytes(column)}. */
  public byte[] column(int column) {
    return columns[column];
  }

  /** Counts {@code count} more rows written at the next positions, every column of them. */
  public void added(int count) {
    if (count < 0 || count > capacity - rows) {
      throw new IllegalStateException(
          count
              + " more rows in the block at row "
              + firstRow
              + " with "
              + rows
              + " of "
              + capacity);
    }
    rows += count;
  }

  /** Starts over with no rows, at shard row {@code first}: for a block written and reused. */
  public ShardBlock reuseAt(long first) {
    return new ShardBlock(first, capacity, columns, 0);
  }

  /** This block with arrays of exactly its rows, so that no unused bytes travel. */
  public ShardBlock trimmed(ShardLayout layout) {
    if (rows == capacity) {
      return this;
    }
    byte[][] exact = new byte[columns.length][];
    for (int c = 0; c < columns.length; c++) {
      exact[c] = java.util.Arrays.copyOf(columns[c], rows * layout.rowBytes(c));
    }
    return new ShardBlock(firstRow, rows, exact, rows);
  }

  @Override
  public String toString() {
    return "ShardBlock[rows " + firstRow + ".." + (firstRow + rows - 1) + "]";
  }
}
