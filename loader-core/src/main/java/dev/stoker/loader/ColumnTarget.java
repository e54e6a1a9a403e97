package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Where a {@link ColumnChunk} writes a run of rows of one field: {@link #rows()} rows of the
 * batch's column, {@link #bytes()} bytes in all, written front to back by the put methods (each
 * continues where the last stopped; raw and typed puts mix freely). The typed puts refuse values of
 * another dtype than the field's, and every put refuses to write past the run; a source range out
 * of bounds is refused before anything is counted. Reused by the loader for every copy a thread
 * makes; valid only inside {@link ColumnChunk#copyTo}.
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

  /**
   * Copies {@code length} raw bytes (values of the field's dtype, native order) from {@code src} at
   * {@code srcIndex}, with absolute access (its position and limit stay).
   */
  public void put(ByteBuffer src, int srcIndex, int length) {
    Objects.checkFromIndexSize(srcIndex, length, src.limit());
    int at = advance(length, null);
    slot.bytes().put(at, src, srcIndex, length);
  }

  public void putFloats(float[] src, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, src.length);
    int at = advance((long) length * Float.BYTES, DType.FLOAT32);
    if (at % Float.BYTES == 0) {
      slot.floats().put(at / Float.BYTES, src, offset, length);
    } else {
      misaligned(at, length * Float.BYTES).asFloatBuffer().put(src, offset, length);
    }
  }

  public void putDoubles(double[] src, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, src.length);
    int at = advance((long) length * Double.BYTES, DType.FLOAT64);
    if (at % Double.BYTES == 0) {
      slot.doubles().put(at / Double.BYTES, src, offset, length);
    } else {
      misaligned(at, length * Double.BYTES).asDoubleBuffer().put(src, offset, length);
    }
  }

  public void putInts(int[] src, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, src.length);
    int at = advance((long) length * Integer.BYTES, DType.INT32);
    if (at % Integer.BYTES == 0) {
      slot.ints().put(at / Integer.BYTES, src, offset, length);
    } else {
      misaligned(at, length * Integer.BYTES).asIntBuffer().put(src, offset, length);
    }
  }

  public void putLongs(long[] src, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, src.length);
    int at = advance((long) length * Long.BYTES, DType.INT64);
    if (at % Long.BYTES == 0) {
      slot.longs().put(at / Long.BYTES, src, offset, length);
    } else {
      misaligned(at, length * Long.BYTES).asLongBuffer().put(src, offset, length);
    }
  }

  /** uint8 values, e.g. pixels. */
  public void putBytes(byte[] src, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, src.length);
    int at = advance(length, DType.UINT8);
    slot.bytes().put(at, src, offset, length);
  }

  public void putFloat(float value) {
    int at = advance(Float.BYTES, DType.FLOAT32);
    slot.bytes().putFloat(at, value);
  }

  public void putDouble(double value) {
    int at = advance(Double.BYTES, DType.FLOAT64);
    slot.bytes().putDouble(at, value);
  }

  public void putInt(int value) {
    int at = advance(Integer.BYTES, DType.INT32);
    slot.bytes().putInt(at, value);
  }

  public void putLong(long value) {
    int at = advance(Long.BYTES, DType.INT64);
    slot.bytes().putLong(at, value);
  }

  public void putByte(byte value) {
    int at = advance(1, DType.UINT8);
    slot.bytes().put(at, value);
  }

  /**
   * A native-order view of {@code length} bytes from {@code at}, for a typed put that follows raw
   * puts of an odd length: still one bulk copy, at the cost of a view.
   */
  private ByteBuffer misaligned(int at, int length) {
    return slot.bytes().slice(at, length).order(ByteOrder.nativeOrder());
  }

  /** Claims {@code length} bytes, checking the dtype (null: raw) and the room left. */
  private int advance(long length, DType dtype) {
    if (slot == null) {
      throw new IllegalStateException(
          "a ColumnTarget is written only inside ColumnChunk.copyTo"
              + " (field '"
              + field.name()
              + "')");
    }
    if (dtype != null && dtype != field.dtype()) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' is %s%s: a chunk wrote %s values (expected: the field's dtype)",
              field.name(), field.dtype().label(), field.shapeText(), dtype.label()));
    }
    if (length < 0 || length > end - position) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s': a chunk wrote %d more bytes with %d of %d left for %d rows (expected: "
                  + "exactly %d bytes per row)",
              field.name(), length, end - position, end - start, rows, rowBytes()));
    }
    int at = position;
    position += (int) length;
    return at;
  }
}
