package dev.stoker.loader;

/**
 * Adapts a function that returns each sample as arrays, one per field, to a {@link MapDataset}.
 * Convenient, at the cost of the arrays the function makes; write a {@link MapDataset} directly for
 * the fastest path.
 */
public final class ArrayDataset implements MapDataset {
  /** Returns the values of sample {@code index}, one per field in schema order. */
  @FunctionalInterface
  public interface SampleFunction {
    /**
     * Each value is a primitive array of the field's dtype with exactly the field's element count
     * ({@code byte[]} for uint8, {@code int[]}, {@code long[]}, {@code float[]}, {@code double[]}),
     * or for a field of one element also a {@link Number}. A Number must be one the field holds
     * exactly: for uint8, int32 and int64 a whole number in the dtype's range (so {@code 1e19} for
     * int64 or {@code 3.7} for uint8 is an error, never truncated); for float32 and float64 any
     * value whose conversion is finite, rounded to the nearest (so {@code 1e300} for float32 is an
     * error), and NaN and infinities given as such.
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
      throw new IllegalArgumentException(
          String.format(
              "sample %d: %s values (expected: %d, one per field %s)",
              index,
              values == null ? "null instead of" : values.length,
              schema.size(),
              schema.names()));
    }
    for (int f = 0; f < values.length; f++) {
      writeField(index, f, values[f], row);
    }
  }

  private void writeField(int index, int f, Object value, SampleWriter row) {
    Field field = schema.field(f);
    if (value instanceof Number number && field.elements() == 1) {
      ScalarWriter.write(row, f, field, index, number);
      return;
    }
    int length = lengthOf(value, field.dtype());
    if (length < 0) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' sample %d: %s (expected: a %s array%s)",
              field.name(),
              index,
              value == null ? "null" : value.getClass().getSimpleName(),
              javaType(field.dtype()),
              field.elements() == 1 ? " or a Number" : ""));
    }
    if (length != field.elements()) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' sample %d: %d values (expected: %d = %s)",
              field.name(), index, length, field.elements(), field.shapeText()));
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
