package dev.stoker.spark.rows;

import dev.stoker.loader.DType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;

/**
 * A fixed-length {@code binary} column as a uint8 tensor (e.g. pixels). From an {@code UnsafeRow}
 * the bytes are copied straight from the row's memory; otherwise through {@code getBinary}.
 */
final class BinaryCopier extends ColumnCopier {
  private static final long serialVersionUID = 1L;

  private final int length;
  private final String shape;

  BinaryCopier(String column, int ordinal, int length, String shape) {
    super(column, ordinal, "uint8" + shape);
    this.length = length;
    this.shape = shape;
  }

  @Override
  int rowBytes() {
    return length;
  }

  @Override
  void copy(
      ColumnVector vector, int from, int count, byte[] dst, int offset, int partition, long index) {
    VectorArrays.copy(
        this, DType.UINT8, length, false, vector, from, count, dst, offset, partition, index);
  }

  @Override
  void copy(InternalRow row, byte[] dst, int offset, int partition, long index) {
    checkNotNull(row, partition, index);
    checkRoom(dst, offset, length);
    if (row instanceof UnsafeRow unsafe) {
      long offsetAndSize = unsafe.getLong(ordinal);
      int at = (int) (offsetAndSize >> 32);
      int size = (int) offsetAndSize;
      checkLength(size, partition, index);
      if (at < 0 || (long) at + size > unsafe.getSizeInBytes()) {
        throw new IllegalStateException(
            String.format(
                "column '%s' row %d of partition %d: " + "binary at %d of %d bytes in a row of %d",
                column, index, partition, at, size, unsafe.getSizeInBytes()));
      }
      Platform.copyMemory(
          unsafe.getBaseObject(),
          unsafe.getBaseOffset() + at,
          dst,
          Platform.BYTE_ARRAY_OFFSET + offset,
          size);
    } else {
      byte[] bytes = row.getBinary(ordinal);
      checkLength(bytes.length, partition, index);
      System.arraycopy(bytes, 0, dst, offset, bytes.length);
    }
  }

  private void checkLength(int size, int partition, long index) {
    if (size != length) {
      throw bad(
          partition,
          index,
          size
              + " bytes (expected: "
              + length
              + " = "
              + shape
              + "; for bytes of varying length, such as encoded images, write the column to "
              + "Parquet and read it with format(\"stoker\") and option transforms)");
    }
  }
}
