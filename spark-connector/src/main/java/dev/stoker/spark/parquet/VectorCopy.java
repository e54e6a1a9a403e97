package dev.stoker.spark.parquet;

import dev.stoker.spark.parquet.SourceColumn.Kind;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;

/**
 * Copies rows of one column of Spark's Parquet reader (off-heap vectors) to native memory in one
 * block per column: numbers as they are, a list's values or a binary's bytes back to back. Every
 * row is checked first: a null, or a row of another length, is an error naming the column, the file
 * and the row in it.
 */
public final class VectorCopy {
  private VectorCopy() {}

  /**
   * Copies rows {@code [from, from + rows)} of {@code vector} to {@code to}, {@code rows *
   * column.rowBytes()} bytes.
   *
   * @param fileRow the index in file {@code path} of row {@code from}
   */
  static void copy(
      ColumnVector vector,
      ColumnSpec column,
      int from,
      int rows,
      long to,
      String path,
      long fileRow) {
    OffHeapColumnVector values = offHeap(vector, column);
    if (values.hasNull()) {
      checkNoNull(values, column, from, rows, path, fileRow, 1, "is null");
    }
    if (column.kind() == Kind.SCALAR) {
      copyValues(values, column, from, rows, to);
      return;
    }
    int length = column.elements();
    if (column.kind() == Kind.BINARY && values.hasDictionary()) {
      copyDictionaryBinaries(values, column, from, rows, to, path, fileRow);
      return;
    }
    int first = values.getArrayOffset(from);
    for (int i = 0; i < rows; i++) {
      int actual = values.getArrayLength(from + i);
      if (actual != length) {
        throw RowErrors.wrongLength(column, Integer.toString(actual), fileRow + i, path);
      }
      if (values.getArrayOffset(from + i) != first + (long) i * length) {
        throw new IllegalStateException(
            "column '"
                + column.name()
                + "': row "
                + (fileRow + i)
                + " of file '"
                + path
                + "' is not where the rows before it end in the reader's "
                + "vector (its values are expected back to back)");
      }
    }
    WritableColumnVector data =
        column.kind() == Kind.LIST ? values.getChild(0) : values.arrayData();
    OffHeapColumnVector elements = offHeap(data, column);
    if (column.kind() == Kind.LIST && elements.hasNull()) {
      checkNoNull(
          elements, column, first, rows * length, path, fileRow, length, "holds a null value");
    }
    copyValues(elements, column, first, rows * length, to);
  }

  /**
   * Copies rows {@code [from, from + rows)} of a binary {@code vector} into variable-length column
   * {@code c} of {@code window} from row {@code atRow}: each row's bytes, whatever their length.
   *
   * @param fileRow the index in file {@code path} of row {@code from}
   */
  static void copyVariable(
      ColumnVector vector,
      ColumnSpec column,
      int from,
      int rows,
      ShuffleWindow window,
      int c,
      int atRow,
      String path,
      long fileRow) {
    OffHeapColumnVector values = offHeap(vector, column);
    if (values.hasNull()) {
      checkNoNull(values, column, from, rows, path, fileRow, 1, "is null");
    }
    if (column.variableList()) {
      copyLists(values, column, from, rows, window, c, atRow, path, fileRow);
      return;
    }
    if (values.hasDictionary()) {
      for (int i = 0; i < rows; i++) {
        byte[] bytes = values.getBinary(from + i);
        window.putVariable(c, atRow + i, bytes, 0, bytes.length);
      }
      return;
    }
    long data = offHeap(values.arrayData(), column).valuesNativeAddress();
    for (int i = 0; i < rows; i++) {
      window.putVariable(
          c, atRow + i, data + values.getArrayOffset(from + i), values.getArrayLength(from + i));
    }
  }

  /**
   * Copies rows of a list vector as variable-length rows of int32 or int64 values: each row's
   * values in one block, or one by one where the reader kept dictionary ids or read smallint
   * (widened to int32).
   */
  private static void copyLists(
      OffHeapColumnVector lists,
      ColumnSpec column,
      int from,
      int rows,
      ShuffleWindow window,
      int c,
      int atRow,
      String path,
      long fileRow) {
    OffHeapColumnVector elements = offHeap(lists.getChild(0), column);
    int size = column.dtype().byteSize();
    boolean direct = !elements.hasDictionary() && !elements.dataType().equals(DataTypes.ShortType);
    byte[] scratch = direct ? null : new byte[256];
    for (int i = 0; i < rows; i++) {
      int first = lists.getArrayOffset(from + i);
      int length = lists.getArrayLength(from + i);
      if (elements.hasNull()) {
        checkNoNull(
            elements, column, first, length, path, fileRow + i, length, "holds a null value");
      }
      if (direct) {
        window.putVariable(
            c, atRow + i, elements.valuesNativeAddress() + (long) first * size, length * size);
        continue;
      }
      if (scratch.length < length * size) {
        scratch = new byte[Math.max(length * size, 2 * scratch.length)];
      }
      for (int k = 0; k < length; k++) {
        long at = Platform.BYTE_ARRAY_OFFSET + (long) k * size;
        if (size == Long.BYTES) {
          Platform.putLong(scratch, at, elements.getLong(first + k));
        } else if (elements.dataType().equals(DataTypes.ShortType)) {
          Platform.putInt(scratch, at, elements.getShort(first + k));
        } else {
          Platform.putInt(scratch, at, elements.getInt(first + k));
        }
      }
      window.putVariable(c, atRow + i, scratch, 0, length * size);
    }
  }

  /**
   * Copies values {@code [from, from + count)}: in one block, or one by one through the dictionary
   * when the reader kept a dictionary-encoded chunk's ids.
   */
  private static void copyValues(
      OffHeapColumnVector values, ColumnSpec column, int from, int count, long to) {
    int size = column.dtype().byteSize();
    if (!values.hasDictionary()) {
      Platform.copyMemory(
          null, values.valuesNativeAddress() + (long) from * size, null, to, (long) count * size);
      return;
    }
    switch (column.dtype()) {
      case FLOAT32 -> {
        for (int i = 0; i < count; i++) {
          Platform.putFloat(null, to + 4L * i, values.getFloat(from + i));
        }
      }
      case FLOAT64 -> {
        for (int i = 0; i < count; i++) {
          Platform.putDouble(null, to + 8L * i, values.getDouble(from + i));
        }
      }
      case INT32 -> {
        for (int i = 0; i < count; i++) {
          Platform.putInt(null, to + 4L * i, values.getInt(from + i));
        }
      }
      case INT64 -> {
        for (int i = 0; i < count; i++) {
          Platform.putLong(null, to + 8L * i, values.getLong(from + i));
        }
      }
      default ->
          throw new IllegalStateException(
              "column '"
                  + column.name()
                  + "': "
                  + column.dtype().label()
                  + " values with a dictionary");
    }
  }

  /** Binary values kept as dictionary ids: each row decoded, checked and copied. */
  private static void copyDictionaryBinaries(
      OffHeapColumnVector values,
      ColumnSpec column,
      int from,
      int rows,
      long to,
      String path,
      long fileRow) {
    int length = column.elements();
    for (int i = 0; i < rows; i++) {
      byte[] bytes = values.getBinary(from + i);
      if (bytes.length != length) {
        throw RowErrors.wrongLength(column, Integer.toString(bytes.length), fileRow + i, path);
      }
      Platform.copyMemory(bytes, Platform.BYTE_ARRAY_OFFSET, null, to + (long) i * length, length);
    }
  }

  private static OffHeapColumnVector offHeap(ColumnVector vector, ColumnSpec column) {
    if (vector instanceof OffHeapColumnVector offHeap) {
      return offHeap;
    }
    throw new IllegalStateException(
        "column '"
            + column.name()
            + "': Spark's Parquet reader gave "
            + "a "
            + vector.getClass().getName()
            + " (expected: an OffHeapColumnVector)");
  }

  /** Entries {@code [from, from + count)}, {@code perRow} to a row, must not be null. */
  private static void checkNoNull(
      ColumnVector vector,
      ColumnSpec column,
      int from,
      int count,
      String path,
      long fileRow,
      int perRow,
      String what) {
    for (int i = 0; i < count; i++) {
      if (vector.isNullAt(from + i)) {
        throw RowErrors.nullValue(column, what, fileRow + i / perRow, path);
      }
    }
  }
}
