package dev.stoker.spark.rows;

import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Copies one column of Spark's rows into a block column, raw and in native order, checking each
 * value: from internal rows one at a time, or from a columnar batch's vector a run of rows at a
 * time. Built on the driver by {@link InputColumns}, run on executors.
 */
abstract class ColumnCopier implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The column's name, as declared. */
  final String column;

  /** Its position in the input row, and in a batch of the input. */
  final int ordinal;

  /** What a value must be, for messages: {@code float32[1,28,28]}, {@code int64}. */
  final String described;

  ColumnCopier(String column, int ordinal, String described) {
    this.column = column;
    this.ordinal = ordinal;
    this.described = described;
  }

  /** Bytes one row takes in the block column. */
  abstract int rowBytes();

  /**
   * Copies the value of {@code row} into {@code dst} at {@code offset}, which has room for the
   * column's bytes per row. {@code partition} and {@code index} name the row in errors.
   */
  abstract void copy(InternalRow row, byte[] dst, int offset, int partition, long index);

  /**
   * Copies rows {@code from .. from + count - 1} of {@code vector} into {@code dst} from {@code
   * offset}, row after row; the first is row {@code index} of input partition {@code partition}.
   */
  abstract void copy(
      ColumnVector vector, int from, int count, byte[] dst, int offset, int partition, long index);

  final BadRowException bad(int partition, long index, String what) {
    return new BadRowException(
        String.format("column '%s' row %d of partition %d: %s", column, index, partition, what));
  }

  final BadRowException nullValue(int partition, long index) {
    return bad(
        partition,
        index,
        "null (expected: " + described + "; drop or fill the nulls first, e.g. df.na().drop())");
  }

  final void checkNotNull(InternalRow row, int partition, long index) {
    if (row.isNullAt(ordinal)) {
      throw nullValue(partition, index);
    }
  }

  final void checkNotNull(ColumnVector vector, int from, int count, int partition, long index) {
    if (vector.hasNull()) {
      for (int r = 0; r < count; r++) {
        if (vector.isNullAt(from + r)) {
          throw nullValue(partition, index + r);
        }
      }
    }
  }

  final void checkRoom(byte[] dst, int offset, long bytes) {
    if (offset < 0 || offset + bytes > dst.length) {
      throw new IllegalStateException(
          String.format(
              "column '%s': %d bytes at %d of a block " + "column of %d",
              column, bytes, offset, dst.length));
    }
  }
}
