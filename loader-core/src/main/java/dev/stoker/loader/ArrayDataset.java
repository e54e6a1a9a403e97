package dev.stoker.loader;

/**
 * Adapts a function that returns each sample as arrays, one per field, to a {@link MapDataset}.
 * Convenient, at the cost of the arrays the function makes; write a {@link MapDataset} directly
 * for the fastest path.
 */
public final class ArrayDataset implements MapDataset {
  /** Returns the values of sample {@code index}, one per field in schema order. */
  @FunctionalInterface
  public interface SampleFunction {
    /**
     * Each value is a primitive array of the field's dtype with exactly the field's element count
     * ({@code byte[]} for uint8, {@code int[]}, {@code long[]}, {@code float[]},
     * {@code double[]}), or for a field of one element also a {@link Number}.
     */
    Object[] sample(int index) throws Exception;
  }

  private final Schema schema;
  private final int size;
  private final SampleFunction function;

  private ArrayDataset(Schema schema, int size, SampleFunction function) {
    if (size < 0) {
      throw new IllegalArgumentException("size: " + size + " (expected: >= 0)");
    }
    this.schema = schema;
    this.size = size;
    this.function = function;
  }

  public static ArrayDataset of(Schema schema, int size, SampleFunction function) {
    return new ArrayDataset(schema, size, function);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void write(int index, SampleWriter row) throws Exception {
    Object[] values = function.sample(index);
    if (values == null || values.length != schema.size()) {
      throw new IllegalArgumentException(String.format(
          "sample %d: %s values (expected: %d, one per field %s)", index,
          values == null ? "null instead of" : values.length, schema.size(), schema.names()));
    }
    for (int f = 0; f < values.length; f++) {
      writeField(index, f, values[f], row);
    }
  }

  private void writeField(int index, int f, Object value, SampleWriter row) {
    Field field = schema.field(f);
    if (value instanceof Number number && field.elements() == 1) {
      checkRange(index, field, number);
      writeScalar(f, field.dtype(), number, row);
      return;
    }
    int length = lengthOf(value, field.dtype());
    if (length < 0) {
      throw new IllegalArgumentException(String.format(
          "field '%s' sample %d: %s (expected: a %s array%s)", field.name(), index,
          value == null ? "null" : value.getClass().getSimpleName(), javaType(field.dtype()),
          field.elements() == 1 ? " or a Number" : ""));
    }
    if (length != field.elements()) {
      throw new IllegalArgumentException(String.format(
          "field '%s' sample %d: %d values (expected: %d = %s)", field.name(), index, length,
          field.elements(), field.shapeText()));
    }
    switch (field.dtype()) {
      case UINT8 -> row.putBytes(f, 0, (byte[]) value, 0, length);
      case INT32 -> row.putInts(f, 0, (int[]) value, 0, length);
      case INT64 -> row.putLongs(f, 0, (long[]) value, 0, length);
      case FLOAT32 -> row.putFloats(f, 0, (float[]) value, 0, length);
      case FLOAT64 -> row.putDoubles(f, 0, (double[]) value, 0, length);
      default -> throw new IllegalStateException("unknown dtype " + field.dtype());
    }
  }

  private static void writeScalar(int f, DType dtype, Number number, SampleWriter row) {
    switch (dtype) {
      case UINT8 -> row.putByte(f, 0, number.byteValue());
      case INT32 -> row.putInt(f, 0, number.intValue());
      case INT64 -> row.putLong(f, 0, number.longValue());
      case FLOAT32 -> row.putFloat(f, 0, number.floatValue());
      case FLOAT64 -> row.putDouble(f, 0, number.doubleValue());
      default -> throw new IllegalStateException("unknown dtype " + dtype);
    }
  }

  /** Refuses a number the field's dtype cannot hold exactly, rather than truncating it. */
  private static void checkRange(int index, Field field, Number number) {
    long low;
    long high;
    switch (field.dtype()) {
      case UINT8 -> { low = 0; high = 255; }
      case INT32 -> { low = Integer.MIN_VALUE; high = Integer.MAX_VALUE; }
      case INT64 -> { low = Long.MIN_VALUE; high = Long.MAX_VALUE; }
      default -> { return; }
    }
    boolean whole = number instanceof Long || number instanceof Integer
        || number instanceof Short || number instanceof Byte
        || number.doubleValue() == Math.rint(number.doubleValue());
    long value = number.longValue();
    if (!whole || value < low || value > high) {
      throw new IllegalArgumentException(String.format(
          "field '%s' sample %d: %s (expected: a whole number in %d..%d for %s)", field.name(),
          index, number, low, high, field.dtype().label()));
    }
  }

  /** The array's length if it is the array type of {@code dtype}, else -1. */
  private static int lengthOf(Object value, DType dtype) {
    return switch (dtype) {
      case UINT8 -> value instanceof byte[] a ? a.length : -1;
      case INT32 -> value instanceof int[] a ? a.length : -1;
      case INT64 -> value instanceof long[] a ? a.length : -1;
      case FLOAT32 -> value instanceof float[] a ? a.length : -1;
      case FLOAT64 -> value instanceof double[] a ? a.length : -1;
    };
  }

  private static String javaType(DType dtype) {
    return switch (dtype) {
      case UINT8 -> "byte[]";
      case INT32 -> "int[]";
      case INT64 -> "long[]";
      case FLOAT32 -> "float[]";
      case FLOAT64 -> "double[]";
    };
  }
}
