package dev.stoker.loader;

import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One row of a dataset as a {@link SampleTransform} reads it: every field of the dataset's schema,
 * the fixed ones in a small record laid out as a one-row batch, the variable-length ones as bytes
 * of any length. Each loading thread has its own, reused for every sample; valid only inside {@link
 * SampleTransform#apply}.
 */
public final class SampleInput {
  /** The most bytes one variable-length value may hold: a Java array's limit, less a margin. */
  public static final int MAX_VALUE_BYTES = Integer.MAX_VALUE - 64;

  private final Schema schema;
  private final BatchLayout layout;
  private final HostMemory record;
  private final SampleWriter writer;
  private final boolean[] variable;
  private final byte[][] values;
  private final int[] lengths;
  private final ByteBuffer[] views;
  private int epoch;
  private long key;

  SampleInput(Schema schema) {
    this.schema = schema;
    this.layout = new BatchLayout(schema, 1);
    int bytes = Math.max(BatchLayout.ALIGNMENT, layout.slotBytes());
    this.record = new DirectAllocator("sample input", bytes).allocate(bytes);
    this.writer = new SampleWriter(layout, this);
    writer.bind(record, 0);
    int fields = schema.size();
    this.variable = new boolean[fields];
    this.values = new byte[fields][];
    this.lengths = new int[fields];
    this.views = new ByteBuffer[fields];
    for (int f = 0; f < fields; f++) {
      Field field = schema.field(f);
      variable[f] = field.isVariable();
      if (variable[f]) {
        values[f] = new byte[256];
      } else {
        lengths[f] = (int) field.bytesPerSample();
        views[f] =
            record
                .bytes()
                .slice(layout.columnOffset(f), lengths[f])
                .asReadOnlyBuffer()
                .order(ByteOrder.nativeOrder());
      }
    }
  }

  /** A new sample starts: every variable-length value is empty until set. */
  void begin(int epoch, long key) {
    this.epoch = epoch;
    this.key = key;
    writer.bind(record, 0);
    for (int f = 0; f < lengths.length; f++) {
      if (variable[f]) {
        lengths[f] = 0;
      }
    }
  }

  /** Where a map dataset writes this sample: the record, and {@link #setVariable} through it. */
  SampleWriter writer() {
    return writer;
  }

  /** The record's memory, where a stream's chunk copies a fixed field of this sample. */
  HostMemory record() {
    return record;
  }

  BatchLayout layout() {
    return layout;
  }

  /** Sets variable-length field {@code field} to {@code length} bytes of {@code src}. */
  void setVariable(int field, byte[] src, int offset, int length) {
    byte[] into = room(field, length);
    System.arraycopy(src, offset, into, 0, length);
    lengths[field] = length;
  }

  /** Sets variable-length field {@code field} to the remaining bytes of {@code src}. */
  void setVariable(int field, ByteBuffer src) {
    int length = src.remaining();
    byte[] into = room(field, length);
    src.get(src.position(), into, 0, length);
    lengths[field] = length;
  }

  private byte[] room(int field, int length) {
    if (length < 0 || length > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s': a value of %d bytes (expected: 0 to %d)",
              schema.field(field).name(), length, MAX_VALUE_BYTES));
    }
    byte[] array = values[field];
    if (array.length < length) {
      long grown = Math.max(length, Math.min((long) array.length * 2, MAX_VALUE_BYTES));
      array = Arrays.copyOf(array, (int) grown);
      values[field] = array;
    }
    return array;
  }

  /** Whether {@code field} is a variable-length field of the schema. */
  boolean isVariable(int field) {
    return variable[field];
  }

  /** The dataset's fields. */
  public Schema schema() {
    return schema;
  }

  /** The epoch this sample is read in. */
  public int epoch() {
    return epoch;
  }

  /**
   * The sample's key: its index in a map dataset, or its row's identity in a stream ({@link
   * ColumnChunk#rowKey}, else its position in the epoch's stream). The loader keys the sample's
   * {@link SampleRandom} by it.
   */
  public long key() {
    return key;
  }

  /** Bytes of field {@code field}'s value: its fixed size, or the variable value's length. */
  public int length(int field) {
    schema.checkIndex(field);
    return lengths[field];
  }

  /**
   * Field {@code field}'s value: values of its dtype in native order, position 0, limit {@link
   * #length}. A variable-length value is a heap buffer over the loader's own array ({@code
   * array()}, {@code arrayOffset()} 0) for decoders that take arrays; do not write into it. Valid
   * until the sample's transform returns.
   */
  public ByteBuffer value(int field) {
    schema.checkIndex(field);
    if (variable[field]) {
      return ByteBuffer.wrap(values[field], 0, lengths[field])
          .slice()
          .order(ByteOrder.nativeOrder());
    }
    return views[field].duplicate().order(ByteOrder.nativeOrder());
  }

  /** The value of the named field ({@link #value(int)}). */
  public ByteBuffer value(String field) {
    return value(schema.indexOf(field));
  }

  /**
   * Copies fixed field {@code field} unchanged into output field {@code outField}: a label or any
   * other field the transform passes through. The output field must have the same dtype and number
   * of elements.
   */
  public void copyTo(int field, SampleWriter out, int outField) {
    schema.checkIndex(field);
    Field in = schema.field(field);
    Field target = out.schema().field(outField);
    if (in.isVariable() || in.dtype() != target.dtype() || in.elements() != target.elements()) {
      throw new IllegalArgumentException(
          String.format(
              "passing field '%s' %s%s through to '%s' %s%s (expected: the same dtype and number "
                  + "of values)",
              in.name(),
              in.dtype().label(),
              in.shapeText(),
              target.name(),
              target.dtype().label(),
              target.shapeText()));
    }
    out.copyRaw(outField, record.bytes(), layout.columnOffset(field));
  }
}
