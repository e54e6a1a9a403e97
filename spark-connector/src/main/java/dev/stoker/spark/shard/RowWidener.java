package dev.stoker.spark.shard;

import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import java.nio.ByteBuffer;

/**
 * Writes stored int32 values as int64, or float32 values as float64: a column declared wider than
 * the files store it, every value kept exactly.
 */
public final class RowWidener implements RowConverter {
  private final DType from;
  private final int elements;

  private RowWidener(DType from, int elements) {
    this.from = from;
    this.elements = elements;
  }

  /** Whether values of {@code from} become {@code to} exactly, and need this conversion. */
  public static boolean widens(DType from, DType to) {
    return from == DType.INT32 && to == DType.INT64 || from == DType.FLOAT32 && to == DType.FLOAT64;
  }

  /**
   * @throws IllegalArgumentException if {@code stored} does not widen to {@code declared}
   */
  public static RowWidener of(Field stored, Field declared) {
    if (!widens(stored.dtype(), declared.dtype()) || stored.elements() != declared.elements()) {
      throw new IllegalArgumentException(
          "column '"
              + declared.name()
              + "': stored as "
              + stored
              + ", declared as "
              + declared
              + " (expected: the same dtype, or int32 declared as "
              + "int64, float32 as float64, with as many values a row)");
    }
    return new RowWidener(stored.dtype(), stored.elements());
  }

  @Override
  public void write(ByteBuffer src, int offset, ColumnTarget target) {
    if (from == DType.INT32) {
      for (int i = 0; i < elements; i++) {
        target.putLong(src.getInt(offset + i * Integer.BYTES));
      }
    } else {
      for (int i = 0; i < elements; i++) {
        target.putDouble(src.getFloat(offset + i * Float.BYTES));
      }
    }
  }
}
