package dev.stoker.spark.rows;

import dev.stoker.loader.DType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;

/**
 * A fixed-length {@code array<float|double|int|bigint>} tensor column. An {@code UnsafeArrayData}
 * (what Spark's plans produce) is copied in one bulk copy from its memory, after checking its
 * length and, if the column may hold nulls, its null bits; any other array value by value; a
 * columnar batch's vector as {@link VectorArrays} does.
 */
final class ArrayCopier extends ColumnCopier {
  private static final long serialVersionUID = 1L;

  private final DType dtype;
  private final int elements;
  private final String shape;
  private final boolean containsNull;

  ArrayCopier(
      String column, int ordinal, DType dtype, int elements, String shape, boolean containsNull) {
    super(column, ordinal, dtype.label() + shape);
    this.dtype = dtype;
    this.elements = elements;
    this.shape = shape;
    this.containsNull = containsNull;
  }

  @Override
  int rowBytes() {
    return elements * dtype.byteSize();
  }

  @Override
  void copy(
      ColumnVector vector, int from, int count, byte[] dst, int offset, int partition, long index) {
    VectorArrays.copy(
        this, dtype, elements, containsNull, vector, from, count, dst, offset, partition, index);
  }

  @Override
  void copy(InternalRow row, byte[] dst, int offset, int partition, long index) {
    checkNotNull(row, partition, index);
    ArrayData array = row.getArray(ordinal);
    int n = array.numElements();
    if (n != elements) {
      throw bad(partition, index, n + " values (expected: " + elements + " = " + shape + ")");
    }
    if (array instanceof UnsafeArrayData unsafe) {
      copyUnsafe(unsafe, dst, offset, partition, index);
    } else {
      copyEach(array, dst, offset, partition, index);
    }
  }

  private void copyUnsafe(
      UnsafeArrayData array, byte[] dst, int offset, int partition, long index) {
    Object base = array.getBaseObject();
    long start = array.getBaseOffset();
    if (containsNull) {
      int words = (elements + 63) / 64;
      for (int w = 0; w < words; w++) {
        long bits = Platform.getLong(base, start + 8 + 8L * w);
        if (bits != 0) {
          throw nullElement(partition, index, w * 64 + Long.numberOfTrailingZeros(bits));
        }
      }
    }
    long header = UnsafeArrayData.calculateHeaderPortionInBytes(elements);
    long bytes = (long) elements * dtype.byteSize();
    checkRoom(dst, offset, bytes);
    if (array.getSizeInBytes() < header + bytes) {
      throw new IllegalStateException(
          String.format(
              "column '%s' row %d of partition %d: an "
                  + "array of %d bytes for %d values of %d bytes",
              column, index, partition, array.getSizeInBytes(), elements, dtype.byteSize()));
    }
    Platform.copyMemory(base, start + header, dst, Platform.BYTE_ARRAY_OFFSET + offset, bytes);
  }

  private void copyEach(ArrayData array, byte[] dst, int offset, int partition, long index) {
    long at = Platform.BYTE_ARRAY_OFFSET + (long) offset;
    checkRoom(dst, offset, (long) elements * dtype.byteSize());
    for (int i = 0; i < elements; i++) {
      if (array.isNullAt(i)) {
        throw nullElement(partition, index, i);
      }
      switch (dtype) {
        case FLOAT32 -> Platform.putFloat(dst, at + 4L * i, array.getFloat(i));
        case FLOAT64 -> Platform.putDouble(dst, at + 8L * i, array.getDouble(i));
        case INT32 -> Platform.putInt(dst, at + 4L * i, array.getInt(i));
        case INT64 -> Platform.putLong(dst, at + 8L * i, array.getLong(i));
        default -> throw new IllegalStateException("array of " + dtype);
      }
    }
  }

  private BadRowException nullElement(int partition, long index, int element) {
    return VectorArrays.nullElement(this, partition, index, element);
  }
}
