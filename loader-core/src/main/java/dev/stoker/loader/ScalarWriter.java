package dev.stoker.loader;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes a {@link Number} into a one-element field, or refuses one the field's dtype cannot hold.
 * Integer dtypes take whole numbers in their range only, checked exactly for every kind of Number.
 * float32 and float64 take any value whose conversion is finite, rounding accepted; NaN and
 * infinities given as such are kept.
 */
final class ScalarWriter {
  private ScalarWriter() {}

  static void write(SampleWriter row, int f, Field field, int index, Number number) {
    switch (field.dtype()) {
      case UINT8 -> row.putByte(f, 0, (byte) whole(field, index, number, 0, 255));
      case INT32 ->
          row.putInt(f, 0, (int) whole(field, index, number, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case INT64 -> row.putLong(f, 0, whole(field, index, number, Long.MIN_VALUE, Long.MAX_VALUE));
      case FLOAT32 -> row.putFloat(f, 0, float32(field, index, number));
      case FLOAT64 -> row.putDouble(f, 0, float64(field, index, number));
      default -> throw new IllegalStateException("unknown dtype " + field.dtype());
    }
  }

  /** The number as a long in {@code low..high}, if it is exactly a whole number there. */
  private static long whole(Field field, int index, Number number, long low, long high) {
    if (isLong(number)) {
      long value = number.longValue();
      if (value >= low && value <= high) {
        return value;
      }
    } else if (number instanceof Double || number instanceof Float) {
      double value = number.doubleValue();
      // (double) high + 1 is exact for 255 and 2^31 - 1, and 2^63 for Long.MAX_VALUE
      if (value == Math.rint(value) && value >= low && value < (double) high + 1) {
        return (long) value;
      }
    } else {
      BigDecimal value = decimal(number);
      if (value != null
          && value.compareTo(BigDecimal.valueOf(low)) >= 0
          && value.compareTo(BigDecimal.valueOf(high)) <= 0
          && (value.signum() == 0 || value.stripTrailingZeros().scale() <= 0)) {
        return value.longValueExact();
      }
    }
    throw new IllegalArgumentException(
        String.format(
            "field '%s' sample %d: %s (expected: a whole number in %d..%d for %s)",
            field.name(), index, number, low, high, field.dtype().label()));
  }

  private static float float32(Field field, int index, Number number) {
    float value = number.floatValue();
    if (Float.isInfinite(value) && isFinite(number)) {
      throw outOfRange(field, index, number, Float.toString(Float.MAX_VALUE));
    }
    return value;
  }

  private static double float64(Field field, int index, Number number) {
    double value = number.doubleValue();
    if (Double.isInfinite(value) && isFinite(number)) {
      throw outOfRange(field, index, number, Double.toString(Double.MAX_VALUE));
    }
    return value;
  }

  private static IllegalArgumentException outOfRange(
      Field field, int index, Number number, String limit) {
    return new IllegalArgumentException(
        String.format(
            "field '%s' sample %d: %s (expected: a number in -%s..%s for %s, or NaN or an infinity)",
            field.name(), index, number, limit, limit, field.dtype().label()));
  }

  /** True for the kinds of Number whose longValue() is the value itself. */
  private static boolean isLong(Number number) {
    return number instanceof Integer
        || number instanceof Long
        || number instanceof Short
        || number instanceof Byte
        || number instanceof AtomicInteger
        || number instanceof AtomicLong
        || number instanceof LongAdder
        || number instanceof LongAccumulator;
  }

  private static boolean isFinite(Number number) {
    if (number instanceof Double || number instanceof Float) {
      return Double.isFinite(number.doubleValue());
    }
    return isLong(number) || decimal(number) != null || Double.isFinite(number.doubleValue());
  }

  /** The exact decimal value of a BigDecimal, a BigInteger or another Number's text; else null. */
  private static BigDecimal decimal(Number number) {
    if (number instanceof BigDecimal value) {
      return value;
    }
    if (number instanceof BigInteger value) {
      return new BigDecimal(value);
    }
    try {
      return new BigDecimal(number.toString());
    } catch (NumberFormatException notDecimal) {
      return null;
    }
  }
}
