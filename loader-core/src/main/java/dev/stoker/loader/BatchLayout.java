package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;

/**
 * Where every column of a batch lives inside one buffer slot: column {@code c} starts at {@link
 * #columnOffset(int)}, aligned to {@link #ALIGNMENT} bytes, and row {@code r} of it at {@code
 * columnOffset(c) + r * rowStride(c)}. All offsets are computed here once.
 */
public final class BatchLayout {
  /** Column alignment in bytes: a cache line, and a multiple of every dtype's size. */
  public static final int ALIGNMENT = 64;

  private final Schema schema;
  private final int batchSize;
  private final int[] columnOffsets;
  private final int[] rowStrides;
  private final int slotBytes;

  public BatchLayout(Schema schema, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize: " + batchSize + " (expected: > 0)");
    }
    this.schema = schema;
    this.batchSize = batchSize;
    this.columnOffsets = new int[schema.size()];
    this.rowStrides = new int[schema.size()];
    long offset = 0;
    for (int c = 0; c < schema.size(); c++) {
      Field field = schema.field(c);
      columnOffsets[c] = (int) offset;
      rowStrides[c] = (int) field.bytesPerSample();
      long columnBytes = saturatedMultiply(field.bytesPerSample(), batchSize);
      checkCapacity(columnBytes); // first alone, so that the sum below cannot overflow
      offset = align(offset + columnBytes);
      checkCapacity(offset);
    }
    this.slotBytes = (int) offset;
  }

  private void checkCapacity(long bytes) {
    if (bytes > Integer.MAX_VALUE - ALIGNMENT) {
      throw new IllegalArgumentException(
          "batchSize: "
              + batchSize
              + " gives a batch of "
              + bytes
              + "+ bytes for "
              + schema
              + " (expected: at most "
              + (Integer.MAX_VALUE - ALIGNMENT)
              + " bytes per batch; lower batchSize)");
    }
  }

  /** a * b for non-negative a and b, or Long.MAX_VALUE where that overflows (then refused). */
  private static long saturatedMultiply(long a, long b) {
    return Math.multiplyHigh(a, b) != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
  }

  private static long align(long bytes) {
    return (bytes + ALIGNMENT - 1) & -ALIGNMENT;
  }

  public Schema schema() {
    return schema;
  }

  public int batchSize() {
    return batchSize;
  }

  /** Bytes of one slot holding a whole batch, columns aligned. */
  public int slotBytes() {
    return slotBytes;
  }

  /**
   * Byte offset of column {@code field} in a slot.
   *
   * @throws IndexOutOfBoundsException for a field index outside the schema, naming it
   */
  public int columnOffset(int field) {
    checkField(field);
    return columnOffsets[field];
  }

  public int rowStride(int field) {
    checkField(field);
    return rowStrides[field];
  }

  /** Byte offset of {@code row} of column {@code field}. */
  public int rowOffset(int field, int row) {
    checkField(field);
    return columnOffsets[field] + row * rowStrides[field];
  }

  /** A field index outside the schema is an error saying so (as cheap as the array's own check). */
  private void checkField(int field) {
    if (field < 0 || field >= columnOffsets.length) {
      schema.checkIndex(field);
    }
  }

  /** Zeroes rows {@code fromRow} to the end of every column of {@code slot}: no stale values. */
  public void zeroRows(HostMemory slot, int fromRow) {
    for (int f = 0; f < schema.size(); f++) {
      slot.zero(rowOffset(f, fromRow), (batchSize - fromRow) * rowStrides[f]);
    }
  }

  /** Bytes of one column over the whole batch. */
  public long columnBytes(int field) {
    checkField(field);
    return (long) rowStrides[field] * batchSize;
  }
}
