package dev.stoker.spark.rows;

import dev.stoker.loader.DType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;

/**
 * A numeric scalar column (tinyint, smallint, int, bigint, float, double) as its declared dtype: a
 * value the dtype holds exactly is written, any other one is an error naming it. Which pairs may
 * meet at all is decided by {@link InputColumns}: never a float column for an integer dtype.
 */
final class ScalarCopier extends ColumnCopier {
  private static final long serialVersionUID = 1L;

  /** How Spark holds the column's values. */
  enum Source {
    BYTE,
    SHORT,
    INT,
    LONG,
    FLOAT,
    DOUBLE
  }

  private final Source source;
  private final DType dtype;
  private final String sparkType;

  ScalarCopier(String column, int ordinal, Source source, DType dtype, String sparkType) {
    super(column, ordinal, dtype.label());
    this.source = source;
    this.dtype = dtype;
    this.sparkType = sparkType;
  }

  @Override
  int rowBytes() {
    return dtype.byteSize();
  }

  @Override
  void copy(
      ColumnVector vector, int from, int count, byte[] dst, int offset, int partition, long index) {
    checkRoom(dst, offset, (long) count * dtype.byteSize());
    checkNotNull(vector, from, count, partition, index);
    long at = Platform.BYTE_ARRAY_OFFSET + (long) offset;
    for (int r = 0; r < count; r++, at += dtype.byteSize()) {
      int row = from + r;
      switch (source) {
        case BYTE -> putIntegral(vector.getByte(row), dst, at, partition, index + r);
        case SHORT -> putIntegral(vector.getShort(row), dst, at, partition, index + r);
        case INT -> putIntegral(vector.getInt(row), dst, at, partition, index + r);
        case LONG -> putIntegral(vector.getLong(row), dst, at, partition, index + r);
        case FLOAT -> putFloating(vector.getFloat(row), dst, at, partition, index + r);
        case DOUBLE -> putFloating(vector.getDouble(row), dst, at, partition, index + r);
      }
    }
  }

  @Override
  void copy(InternalRow row, byte[] dst, int offset, int partition, long index) {
    checkNotNull(row, partition, index);
    checkRoom(dst, offset, dtype.byteSize());
    long at = Platform.BYTE_ARRAY_OFFSET + (long) offset;
    if (source == Source.FLOAT || source == Source.DOUBLE) {
      double value = source == Source.FLOAT ? row.getFloat(ordinal) : row.getDouble(ordinal);
      putFloating(value, dst, at, partition, index);
    } else {
      long value =
          switch (source) {
            case BYTE -> row.getByte(ordinal);
            case SHORT -> row.getShort(ordinal);
            case INT -> row.getInt(ordinal);
            default -> row.getLong(ordinal);
          };
      putIntegral(value, dst, at, partition, index);
    }
  }

  private void putFloating(double value, byte[] dst, long at, int partition, long index) {
    if (dtype == DType.FLOAT64) {
      Platform.putDouble(dst, at, value);
      return;
    }
    float narrow = (float) value;
    if (narrow != value && !Double.isNaN(value)) {
      throw inexact(partition, index, Double.toString(value), "float");
    }
    Platform.putFloat(dst, at, narrow);
  }

  private void putIntegral(long value, byte[] dst, long at, int partition, long index) {
    switch (dtype) {
      case UINT8 -> {
        if (value < 0 || value > 255) {
          throw bad(partition, index, value + " (expected: uint8, 0..255)");
        }
        Platform.putByte(dst, at, (byte) value);
      }
      case INT32 -> {
        if (value != (int) value) {
          throw bad(
              partition,
              index,
              value + " (expected: int32, " + Integer.MIN_VALUE + ".." + Integer.MAX_VALUE + ")");
        }
        Platform.putInt(dst, at, (int) value);
      }
      case INT64 -> Platform.putLong(dst, at, value);
      case FLOAT32 -> {
        float f = value;
        if (f == 0x1p63f || (long) f != value) {
          throw inexact(partition, index, Long.toString(value), "float");
        }
        Platform.putFloat(dst, at, f);
      }
      case FLOAT64 -> {
        double d = value;
        if (d == 0x1p63 || (long) d != value) {
          throw inexact(partition, index, Long.toString(value), "double");
        }
        Platform.putDouble(dst, at, d);
      }
      default -> throw new IllegalStateException("scalar of " + dtype);
    }
  }

  private BadRowException inexact(int partition, long index, String value, String cast) {
    return bad(
        partition,
        index,
        value
            + " (expected: a "
            + sparkType
            + " that "
            + dtype.label()
            + " holds exactly; if rounding is fine, cast it in Spark first, e.g. col(\""
            + column
            + "\").cast(\""
            + cast
            + "\"))");
  }
}
