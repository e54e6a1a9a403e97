package dev.stoker.tools.gpucheck;

import dev.stoker.loader.Field;
import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Random samples of any schema, drawn once from a seed and kept on the heap by field, so that every
 * row that reaches a device can be compared with the sample it came from.
 */
public final class CheckDataset implements MapDataset {
  private final Schema schema;
  private final int size;
  private final Object[] values;

  public CheckDataset(Schema schema, int size, long seed) {
    this.schema = schema;
    this.size = size;
    this.values = new Object[schema.size()];
    SplittableRandom random = new SplittableRandom(seed);
    for (int f = 0; f < schema.size(); f++) {
      values[f] = draw(schema.field(f), size, random);
    }
  }

  private static Object draw(Field field, int size, SplittableRandom random) {
    int n = size * field.elements();
    return switch (field.dtype()) {
      case UINT8 -> {
        byte[] v = new byte[n];
        for (int i = 0; i < n; i++) {
          v[i] = (byte) random.nextInt(256);
        }
        yield v;
      }
      case INT32 -> random.ints(n).toArray();
      case INT64 -> random.longs(n).toArray();
      case FLOAT32 -> {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
          v[i] = (float) (random.nextDouble() * 2 - 1);
        }
        yield v;
      }
      case FLOAT64 -> random.doubles(n, -1e6, 1e6).toArray();
    };
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
  public void write(int index, SampleWriter row) {
    for (int f = 0; f < values.length; f++) {
      int n = schema.field(f).elements();
      int from = index * n;
      switch (schema.field(f).dtype()) {
        case UINT8 -> row.putBytes(f, 0, (byte[]) values[f], from, n);
        case INT32 -> row.putInts(f, 0, (int[]) values[f], from, n);
        case INT64 -> row.putLongs(f, 0, (long[]) values[f], from, n);
        case FLOAT32 -> row.putFloats(f, 0, (float[]) values[f], from, n);
        case FLOAT64 -> row.putDoubles(f, 0, (double[]) values[f], from, n);
        default -> throw new IllegalStateException("dtype " + schema.field(f).dtype());
      }
    }
  }

  /**
   * The first element of field {@code f} of sample {@code index} that differs from the row at byte
   * {@code base} of {@code column} (the field's column of a batch, native order), or -1.
   */
  public int firstDifference(int f, long index, ByteBuffer column, int base) {
    Field field = schema.field(f);
    int n = field.elements();
    int from = Math.toIntExact(index) * n;
    for (int e = 0; e < n; e++) {
      int at = base + e * field.dtype().byteSize();
      boolean same =
          switch (field.dtype()) {
            case UINT8 -> column.get(at) == ((byte[]) values[f])[from + e];
            case INT32 -> column.getInt(at) == ((int[]) values[f])[from + e];
            case INT64 -> column.getLong(at) == ((long[]) values[f])[from + e];
            case FLOAT32 ->
                Float.floatToRawIntBits(column.getFloat(at))
                    == Float.floatToRawIntBits(((float[]) values[f])[from + e]);
            case FLOAT64 ->
                Double.doubleToRawLongBits(column.getDouble(at))
                    == Double.doubleToRawLongBits(((double[]) values[f])[from + e]);
          };
      if (!same) {
        return e;
      }
    }
    return -1;
  }
}
