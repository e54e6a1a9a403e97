package dev.stoker.spark.rows;

import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Copies one column of Spark's internal rows into a block column, raw and in native order,
 * checking each value; built on the driver by {@link InputColumns}, run on executors.
 */
abstract class ColumnCopier implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The column's name, as declared. */
  final String column;
  /** Its position in the input row. */
  final int ordinal;
  /** What a value must be, for messages: {@code float32[1,28,28]}, {@code int64}. */
  final String described;

  ColumnCopier(String column, int ordinal, String described) {
    this.column = column;
    this.ordinal = ordinal;
    this.described = described;
  }

  /**
   * Copies the value of {@code row} into {@code dst} at {@code offset}, which has room for the
   * column's bytes per row. {@code partition} and {@code index} name the row in errors.
   */
  abstract void copy(InternalRow row, byte[] dst, int offset, int partition, long index);

  final BadRowException bad(int partition, long index, String what) {
    return new BadRowException(String.format("column '%s' row %d of partition %d: %s",
        column, index, partition, what));
  }

  final void checkNotNull(InternalRow row, int partition, long index) {
    if (row.isNullAt(ordinal)) {
      throw bad(partition, index, "null (expected: " + described
          + "; drop or fill the nulls first, e.g. df.na().drop())");
    }
  }
}
