package dev.stoker.spark.rows;

import dev.stoker.loader.DType;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.unsafe.Platform;

/**
 * Fixed-length arrays (and binary values) of a columnar batch's vector into a block column. The
 * vectors Spark's own readers fill keep a batch's values one after another in a child vector: a run
 * of rows whose arrays follow each other is one bulk copy (straight from native memory for off-heap
 * vectors). Any other vector is read row by row through its arrays.
 */
final class VectorArrays {
  private VectorArrays() {}

  static void copy(
      ColumnCopier copier,
      DType dtype,
      int elements,
      boolean elementNulls,
      ColumnVector vector,
      int from,
      int count,
      byte[] dst,
      int offset,
      int partition,
      long index) {
    int rowBytes = elements * dtype.byteSize();
    copier.checkRoom(dst, offset, (long) count * rowBytes);
    copier.checkNotNull(vector, from, count, partition, index);
    if (!(vector instanceof WritableColumnVector writable)) {
      for (int r = 0; r < count; r++) {
        if (dtype == DType.UINT8) {
          byte[] bytes = vector.getBinary(from + r);
          checkLength(copier, dtype, elements, bytes.length, partition, index + r);
          System.arraycopy(bytes, 0, dst, offset + r * rowBytes, elements);
          continue;
        }
        ColumnarArray array = vector.getArray(from + r);
        checkLength(copier, dtype, elements, array.numElements(), partition, index + r);
        for (int e = 0; elementNulls && e < elements; e++) {
          if (array.isNullAt(e)) {
            throw nullElement(copier, partition, index + r, e);
          }
        }
        copyArray(dtype, array, dst, offset + r * rowBytes);
      }
      return;
    }
    int first = writable.getArrayOffset(from);
    boolean contiguous = true;
    for (int r = 0; r < count; r++) {
      checkLength(copier, dtype, elements, writable.getArrayLength(from + r), partition, index + r);
      contiguous &= writable.getArrayOffset(from + r) == first + r * elements;
    }
    WritableColumnVector values = writable.arrayData();
    if (elementNulls && values.hasNull()) {
      for (int r = 0; r < count; r++) {
        int at = writable.getArrayOffset(from + r);
        for (int e = 0; e < elements; e++) {
          if (values.isNullAt(at + e)) {
            throw nullElement(copier, partition, index + r, e);
          }
        }
      }
    }
    if (contiguous) {
      copyValues(dtype, values, first, count * elements, dst, offset);
    } else {
      for (int r = 0; r < count; r++) {
        copyValues(
            dtype, values, writable.getArrayOffset(from + r), elements, dst, offset + r * rowBytes);
      }
    }
  }

  private static void copyValues(
      DType dtype, WritableColumnVector values, int at, int n, byte[] dst, int offset) {
    long bytes = (long) n * dtype.byteSize();
    long target = Platform.BYTE_ARRAY_OFFSET + (long) offset;
    if (values instanceof OffHeapColumnVector offHeap) {
      Platform.copyMemory(
          null, offHeap.valuesNativeAddress() + (long) at * dtype.byteSize(), dst, target, bytes);
      return;
    }
    switch (dtype) {
      case FLOAT32 ->
          Platform.copyMemory(
              values.getFloats(at, n), Platform.FLOAT_ARRAY_OFFSET, dst, target, bytes);
      case FLOAT64 ->
          Platform.copyMemory(
              values.getDoubles(at, n), Platform.DOUBLE_ARRAY_OFFSET, dst, target, bytes);
      case INT32 ->
          Platform.copyMemory(values.getInts(at, n), Platform.INT_ARRAY_OFFSET, dst, target, bytes);
      case INT64 ->
          Platform.copyMemory(
              values.getLongs(at, n), Platform.LONG_ARRAY_OFFSET, dst, target, bytes);
      case UINT8 -> System.arraycopy(values.getBytes(at, n), 0, dst, offset, n);
    }
  }

  private static void copyArray(DType dtype, ColumnarArray array, byte[] dst, int offset) {
    long target = Platform.BYTE_ARRAY_OFFSET + (long) offset;
    long bytes = (long) array.numElements() * dtype.byteSize();
    switch (dtype) {
      case FLOAT32 ->
          Platform.copyMemory(
              array.toFloatArray(), Platform.FLOAT_ARRAY_OFFSET, dst, target, bytes);
      case FLOAT64 ->
          Platform.copyMemory(
              array.toDoubleArray(), Platform.DOUBLE_ARRAY_OFFSET, dst, target, bytes);
      case INT32 ->
          Platform.copyMemory(array.toIntArray(), Platform.INT_ARRAY_OFFSET, dst, target, bytes);
      case INT64 ->
          Platform.copyMemory(array.toLongArray(), Platform.LONG_ARRAY_OFFSET, dst, target, bytes);
      case UINT8 -> System.arraycopy(array.toByteArray(), 0, dst, offset, array.numElements());
    }
  }

  private static void checkLength(
      ColumnCopier copier, DType dtype, int elements, int length, int partition, long index) {
    if (length != elements) {
      throw copier.bad(
          partition,
          index,
          length
              + (dtype == DType.UINT8 ? " bytes" : " values")
              + " (expected: "
              + elements
              + " = "
              + shapeOf(copier)
              + ")");
    }
  }

  private static String shapeOf(ColumnCopier copier) {
    return copier.described.substring(copier.described.indexOf('['));
  }

  static BadRowException nullElement(ColumnCopier copier, int partition, long index, int element) {
    return copier.bad(
        partition,
        index,
        "null at element "
            + element
            + " (expected: "
            + copier.described
            + " without nulls; fill them first, e.g. with transform(col, x -> "
            + "coalesce(x, 0)))");
  }
}
