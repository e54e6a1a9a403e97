package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;

/**
 * Where a {@link ColumnChunk} writes a run of rows of one field: {@link #rows()} rows of the
 * batch's column, {@link #bytes()} bytes in all, written front to back by the put methods (each
 * continues where the last stopped). Reused by the loader for every copy a thread makes; valid
 * only inside {@link ColumnChunk#copyTo}.
 */
public final class ColumnTarget {
  private HostMemory slot;
  private Field field;
  private int rows;
  private int start;
  private int end;
  private int position;

  ColumnTarget() {}

  void bind(HostMemory slot, Field field, int byteOffset, int rows) {
    this.slot = slot;
    this.field = field;
    this.rows = rows;
    this.start = byteOffset;
    this.position = byteOffset;
    this.end = byteOffset + (int) (rows * field.bytesPerSample());
  }

  void unbind() {
    this.slot = null;
  }

  /** The field being written. */
  public Field field() {
    return field;
  }

  /** Rows to write. */
  public int rows() {
    return rows;
  }

  /** Bytes of one row of the field. */
  public int rowBytes() {
    return (int) field.bytesPerSample();
  }

  /** Bytes to write in all: {@code rows() * rowBytes()}. */
  public int bytes() {
    return end - start;
  }

  /** Bytes still to write. */
  public int remaining() {
    return end - position;
  }

  /** Copies {@code length} raw bytes (values of the field's dtype, native order) from {@code src}. */
  public void put(ByteBuffer src, int srcIndex, int length) {
    int at = advance(length, null);
    slot.bytes().put(at, src, srcIndex, length);
  }

  public void putFloats(float[] src, int offset, int length) {
    int at = advance((long) length * Float.BYTES, DType.FLOAT32);
    slot.floats().put(at / Float.BYTES, src, offset, length);
  }

  public void putDoubles(double[] src, int offset, int length) {
    int at = advance((long) length * Double.BYTES, DType.FLOAT64);
    slot.doubles().put(at / Double.BYTES, src, offset, length);
  }

  public void putInts(int[] src, int offset, int length) {
    int at = advance((long) length * Integer.BYTES, DType.INT32);
    slot.ints().put(at / Integer.BYTES, src, offset, length);
  }

  public void putLongs(long[] src, int offset, int length) {
    int at = advance((long) length * Long.BYTES, DType.INT64);
    slot.longs().put(at / Long.BYTES, src, offset, length);
  }

  /** uint8 values, e.g. pixels. */
  public void putBytes(byte[] src, int offset, int length) {
    int at = advance(length, DType.UINT8);
    slot.bytes().put(at, src, offset, length);
  }

  public void putFloat(float value) {
    slot.bytes().putFloat(advance(Float.BYTES, DType.FLOAT32), value);
  }

  public void putDouble(double value) {
    slot.bytes().putDouble(advance(Double.BYTES, DType.FLOAT64), value);
  }

  public void putInt(int value) {
    slot.bytes().putInt(advance(Integer.BYTES, DType.INT32), value);
  }

  public void putLong(long value) {
    slot.bytes().putLong(advance(Long.BYTES, DType.INT64), value);
  }

  public void putByte(byte value) {
    slot.bytes().put(advance(1, DType.UINT8), value);
  }

  /** Claims {@code length} bytes, checking the dtype (null: raw) and the room left. */
  private int advance(long length, DType dtype) {
    if (dtype != null && dtype != field.dtype()) {
      throw new IllegalArgumentException(String.format(
          "field '%s' is %s%s: a chunk wrote %s values (expected: the field's dtype)",
          field.name(), field.dtype().label(), field.shapeText(), dtype.label()));
    }
    if (length < 0 || length > end - position) {
      throw new IllegalArgumentException(String.format(
          "field '%s': a chunk wrote %d more bytes with %d of %d left for %d rows (expected: "
              + "exactly %d bytes per row)", field.name(), length, end - position, end - start,
          rows, rowBytes()));
    }
    int at = position;
    position += (int) length;
    return at;
  }
}
