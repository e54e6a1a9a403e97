package dev.stoker.spark.source;

import dev.stoker.loader.DType;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark column vector over one column of a loader batch, read in place: no copy between the batch
 * slot and Spark. Row {@code r} of a column of {@code elements} values per row starts {@code r *
 * elements} values after the column's first byte. A list column's rows are {@link ColumnarArray}s
 * over a child vector of its values; a binary column's are byte arrays. Rebound to every new batch;
 * it reads through a view of the slot, so a vector kept too long shows later batches but never
 * freed memory. Never null.
 */
final class SlotColumnVector extends ColumnVector {
  private final DType dtype;
  private final int elements;
  private final SlotColumnVector values;
  private ByteBuffer memory;
  private int offset;
  private FloatBuffer floats;
  private DoubleBuffer doubles;
  private IntBuffer ints;
  private LongBuffer longs;

  /**
   * A vector of Spark type {@code type} over values of {@code dtype}, {@code elements} per row: 1
   * for numbers, the row length of lists and binaries.
   */
  SlotColumnVector(DataType type, DType dtype, int elements) {
    super(type);
    this.dtype = dtype;
    this.elements = elements;
    this.values =
        type instanceof ArrayType array
            ? new SlotColumnVector(array.elementType(), dtype, 1)
            : null;
  }

  /** Reads the column starting at byte {@code offset} of {@code memory} from now on. */
  void bind(ByteBuffer memory, int offset) {
    this.memory = memory;
    this.offset = offset;
    this.floats = null;
    this.doubles = null;
    this.ints = null;
    this.longs = null;
    if (values != null) {
      values.bind(memory, offset);
    }
  }

  private int at(int rowId, int size) {
    return offset + rowId * size;
  }

  @Override
  public void close() {
    memory = null;
  }

  @Override
  public boolean hasNull() {
    return false;
  }

  @Override
  public int numNulls() {
    return 0;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return false;
  }

  @Override
  public int getInt(int rowId) {
    return memory.getInt(at(rowId, Integer.BYTES));
  }

  @Override
  public long getLong(int rowId) {
    return memory.getLong(at(rowId, Long.BYTES));
  }

  @Override
  public float getFloat(int rowId) {
    return memory.getFloat(at(rowId, Float.BYTES));
  }

  @Override
  public double getDouble(int rowId) {
    return memory.getDouble(at(rowId, Double.BYTES));
  }

  @Override
  public int[] getInts(int rowId, int count) {
    if (ints == null) {
      ints = memory.asIntBuffer();
    }
    int[] out = new int[count];
    ints.get(offset / Integer.BYTES + rowId, out);
    return out;
  }

  @Override
  public long[] getLongs(int rowId, int count) {
    if (longs == null) {
      longs = memory.asLongBuffer();
    }
    long[] out = new long[count];
    longs.get(offset / Long.BYTES + rowId, out);
    return out;
  }

  @Override
  public float[] getFloats(int rowId, int count) {
    if (floats == null) {
      floats = memory.asFloatBuffer();
    }
    float[] out = new float[count];
    floats.get(offset / Float.BYTES + rowId, out);
    return out;
  }

  @Override
  public double[] getDoubles(int rowId, int count) {
    if (doubles == null) {
      doubles = memory.asDoubleBuffer();
    }
    double[] out = new double[count];
    doubles.get(offset / Double.BYTES + rowId, out);
    return out;
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return new ColumnarArray(values, rowId * elements, elements);
  }

  @Override
  public byte[] getBinary(int rowId) {
    byte[] out = new byte[elements];
    memory.get(at(rowId, elements), out);
    return out;
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    if (ordinal != 0 || values == null) {
      throw new IndexOutOfBoundsException(
          "child "
              + ordinal
              + " of a "
              + type.catalogString()
              + " column (expected: 0, of an array column)");
    }
    return values;
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported("boolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported("byte");
  }

  @Override
  public short getShort(int rowId) {
    throw unsupported("short");
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw unsupported("map");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw unsupported("decimal");
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw unsupported("string");
  }

  private UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException(
        "a "
            + type.catalogString()
            + " column of "
            + dtype.label()
            + " values has no "
            + what
            + " values");
  }
}
