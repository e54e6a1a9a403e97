package dev.stoker.spark.source;

import dev.stoker.spark.source.SourceColumn.Kind;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;

/**
 * Copies rows of one column of Spark's Parquet reader (off-heap vectors) to native memory in one
 * block per column: numbers as they are, a list's values or a binary's bytes back to back. Every
 * row is checked first: a null, or a row of another length, is an error naming the column, the
 * file and the row in it.
 */
final class VectorCopy {
  private VectorCopy() {}

  /**
   * Copies rows {@code [from, from + rows)} of {@code vector} to {@code to}, {@code rows *
   * column.rowBytes()} bytes.
   *
   * @param fileRow the index in file {@code path} of row {@code from}
   */
  static void copy(ColumnVector vector, ColumnSpec column, int from, int rows, long to,
      String path, long fileRow) {
    OffHeapColumnVector values = offHeap(vector, column);
    if (values.hasNull()) {
      checkNoNull(values, column, from, rows, path, fileRow, 1, "is null");
    }
    int size = column.dtype().byteSize();
    if (column.kind() == Kind.SCALAR) {
      Platform.copyMemory(null, values.valuesNativeAddress() + (long) from * size, null, to,
          (long) rows * size);
      return;
    }
    int length = column.elements();
    int first = values.getArrayOffset(from);
    for (int i = 0; i < rows; i++) {
      int actual = values.getArrayLength(from + i);
      if (actual != length) {
        throw new IllegalArgumentException(String.format("column '%s' has %d %s in row %d of "
                + "file '%s' (expected: %d = %s, as %s say%s; write every row with %d, or "
                + "filter out the others before loading)", column.name(), actual,
            column.kind() == Kind.LIST ? "values" : "bytes", fileRow + i, path, length,
            column.shapeText(), column.lengthSource(),
            column.lengthSource().startsWith("the footers") ? "" : "s", length));
      }
      if (values.getArrayOffset(from + i) != first + (long) i * length) {
        throw new IllegalStateException("column '" + column.name() + "': row " + (fileRow + i)
            + " of file '" + path + "' is not where the rows before it end in the reader's "
            + "vector (its values are expected back to back)");
      }
    }
    WritableColumnVector data = column.kind() == Kind.LIST ? values.getChild(0)
        : values.arrayData();
    OffHeapColumnVector elements = offHeap(data, column);
    if (column.kind() == Kind.LIST && elements.hasNull()) {
      checkNoNull(elements, column, first, rows * length, path, fileRow, length,
          "holds a null value");
    }
    Platform.copyMemory(null, elements.valuesNativeAddress() + (long) first * size, null, to,
        (long) rows * length * size);
  }

  private static OffHeapColumnVector offHeap(ColumnVector vector, ColumnSpec column) {
    if (vector instanceof OffHeapColumnVector offHeap) {
      return offHeap;
    }
    throw new IllegalStateException("column '" + column.name() + "': Spark's Parquet reader gave "
        + "a " + vector.getClass().getName() + " (expected: an OffHeapColumnVector)");
  }

  /** Entries {@code [from, from + count)}, {@code perRow} to a row, must not be null. */
  private static void checkNoNull(ColumnVector vector, ColumnSpec column, int from, int count,
      String path, long fileRow, int perRow, String what) {
    for (int i = 0; i < count; i++) {
      if (vector.isNullAt(from + i)) {
        throw new IllegalArgumentException(String.format("column '%s' %s in row %d of file '%s' "
                + "(expected: no nulls in a column format(\"stoker\") loads; drop or fill them "
                + "before writing, e.g. df.na().drop() or df.na().fill(...))", column.name(), what,
            fileRow + i / perRow, path));
      }
    }
  }
}
