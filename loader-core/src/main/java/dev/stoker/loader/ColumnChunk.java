package dev.stoker.loader;

import java.nio.ByteBuffer;

/**
 * Consecutive rows of a stream, column by column. The loader asks for a run of rows of one field at
 * a time and the chunk writes them into a {@link ColumnTarget} in bulk: values of the field's
 * dtype, native byte order, row after row. Several threads may copy from one chunk at once
 * (different rows); the chunk must allow that.
 */
public interface ColumnChunk {
  /** Rows in the chunk, >= 0. */
  int rows();

  /**
   * Writes rows {@code [fromRow, fromRow + target.rows())} of field {@code field} (the schema's
   * index) into {@code target}, exactly {@code target.bytes()} bytes. A wrong value (a null, a
   * wrong length) is an exception naming the field and row; the loader adds the batch.
   */
  void copyTo(int field, int fromRow, ColumnTarget target) throws Exception;

  /**
   * The value of variable-length field {@code field} ({@link Field#variable}) at row {@code row}:
   * its raw bytes (values of the field's dtype, native order) between position and limit. The
   * loader copies them before it asks for another value, so the buffer may be reused. A null value
   * is an exception naming the field and row.
   *
   * @throws UnsupportedOperationException by default: a chunk without variable-length fields
   */
  default ByteBuffer variableValue(int field, int row) throws Exception {
    throw new UnsupportedOperationException(
        "field "
            + field
            + ": this chunk ("
            + getClass().getName()
            + ") has no variable-length values (expected: a chunk that implements variableValue)");
  }

  /**
   * A stable identity of row {@code row} in the dataset (e.g. its ordinal in the input), the same
   * in every epoch, on any number of ranks and after a resume; or -1 if the chunk has none, and
   * then the row's position in the epoch's stream stands in. Keys each sample's {@link
   * SampleRandom}.
   */
  default long rowKey(int row) {
    return -1;
  }

  /** Called once every row of the chunk has been copied; the stream may then reuse its memory. */
  default void close() throws Exception {}

  /**
   * A chunk over one buffer per field, in schema order, each holding {@code rows} rows laid out as
   * a batch lays out the field (the dtype's values in native order, row after row, from index 0).
   * The buffers are read with absolute access only.
   */
  static ColumnChunk ofBuffers(int rows, ByteBuffer... columns) {
    return new BufferChunk(rows, columns);
  }
}
