package dev.stoker.loader;

import java.nio.ByteBuffer;

/**
 * {@link ColumnChunk#ofBuffers}: columns laid out as in a batch, copied with one bulk put each.
 * Reads with absolute access only, up to each buffer's limit, so threads may copy at once.
 */
final class BufferChunk implements ColumnChunk {
  private final int rows;
  private final ByteBuffer[] columns;

  BufferChunk(int rows, ByteBuffer[] columns) {
    if (rows < 0) {
      throw new IllegalArgumentException("rows: " + rows + " (expected: >= 0)");
    }
    for (int f = 0; f < columns.length; f++) {
      if (columns[f] == null) {
        throw new IllegalArgumentException("column " + f + ": null (expected: a buffer)");
      }
    }
    this.rows = rows;
    this.columns = columns.clone();
  }

  @Override
  public int rows() {
    return rows;
  }

  @Override
  public void copyTo(int field, int fromRow, ColumnTarget target) {
    if (field < 0 || field >= columns.length) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' (index %d): the chunk has %d column(s) (expected: one per field)",
              target.field().name(), field, columns.length));
    }
    long start = (long) fromRow * target.rowBytes();
    ByteBuffer column = columns[field];
    if (fromRow < 0 || fromRow + target.rows() > rows || start + target.bytes() > column.limit()) {
      throw new IndexOutOfBoundsException(
          String.format(
              "field '%s': rows %d..%d of a chunk of %d rows whose column has %d bytes "
                  + "(expected: %d bytes per row)",
              target.field().name(),
              fromRow,
              fromRow + target.rows() - 1,
              rows,
              column.limit(),
              target.rowBytes()));
    }
    target.put(column, (int) start, target.bytes());
  }
}
