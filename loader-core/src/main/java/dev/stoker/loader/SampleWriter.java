package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * Writes one sample into its row of a batch slot. Reused for every sample a worker writes; valid
 * only inside {@link MapDataset#write}. Bulk methods copy a whole field (or a part of it, from
 * {@code element}) in one call; every call checks the field's dtype and the length.
 *
 * <p>A sample that writes only part of a field would leave the previous batch's values in the rest
 * of its row, so the writer notes exactly which elements of every field were written and the loader
 * treats a sample that left any out as bad. Taking {@link #bytes()} or {@link #floats()} opts out
 * of that check.
 */
public final class SampleWriter {
  private final BatchLayout layout;
  private final Schema schema;
  private final FieldCoverage coverage;
  /*
   * Per field, read once from the schema and the layout: a put checks and places its values with
   * these array reads alone. The put path is inlined into every dataset's write(); kept this small
   * (the refusals out of line) it leaves the JIT's optimization of the dataset's own loops alone.
   */
  private final DType[] dtypes;
  private final int[] elements;
  private final int[] columnOffsets;
  private final int[] rowStrides;

  /** Per field, the first dimension of its shape (its channels), 1 for a scalar. */
  private final int[] leadingDims;

  /** Where variable-length values go when this writes a {@link SampleInput}; null for a batch. */
  private final SampleInput variableSink;

  private HostMemory slot;
  private int row;
  private boolean rawAccess;

  SampleWriter(BatchLayout layout) {
    this(layout, null);
  }

  SampleWriter(BatchLayout layout, SampleInput variableSink) {
    this.layout = layout;
    this.variableSink = variableSink;
    this.schema = layout.schema();
    this.coverage = new FieldCoverage(schema);
    int fields = schema.size();
    this.dtypes = new DType[fields];
    this.elements = new int[fields];
    this.columnOffsets = new int[fields];
    this.rowStrides = new int[fields];
    this.leadingDims = new int[fields];
    for (int f = 0; f < fields; f++) {
      dtypes[f] = schema.field(f).dtype();
      elements[f] = schema.field(f).elements();
      columnOffsets[f] = layout.columnOffset(f);
      rowStrides[f] = layout.rowStride(f);
      int[] shape = schema.field(f).shape();
      leadingDims[f] = shape.length == 0 ? 1 : shape[0];
    }
  }

  void bind(HostMemory slot, int row) {
    this.slot = slot;
    this.row = row;
    this.rawAccess = false;
    coverage.reset();
  }

  /** Lets go of the slot once a batch is written. */
  void unbind() {
    this.slot = null;
  }

  /** The first field this row's sample did not write in full, or -1. */
  int firstIncompleteField() {
    return rawAccess ? -1 : coverage.firstIncomplete();
  }

  /** Elements of {@code field} this row's sample wrote. */
  int writtenElements(int field) {
    return coverage.written(field);
  }

  public Schema schema() {
    return schema;
  }

  /** The row being written. */
  public int row() {
    return row;
  }

  /** Byte offset of element {@code element} of {@code field} in this row, in {@link #bytes()}. */
  public int offset(int field, int element) {
    return layout.rowOffset(field, row) + element * schema.field(field).dtype().byteSize();
  }

  /**
   * A view of the whole slot, native order, position 0, for datasets with their own fast paths:
   * write this row's values at {@link #offset}. The loader no longer checks that every field was
   * written. Valid only inside {@link MapDataset#write}.
   */
  public ByteBuffer bytes() {
    rawAccess = true;
    return slot.writerView();
  }

  /** {@link #bytes()} as floats; element index = byte offset / 4. Allocates a view. */
  public FloatBuffer floats() {
    return bytes().asFloatBuffer();
  }

  public void putFloats(int field, float[] src, int offset, int length) {
    putFloats(field, 0, src, offset, length);
  }

  public void putFloats(int field, int element, float[] src, int offset, int length) {
    int at = checked(field, DType.FLOAT32, element, length, "putFloats");
    slot.floats().put(at / Float.BYTES, src, offset, length);
  }

  public void putFloat(int field, int element, float value) {
    slot.bytes().putFloat(checked(field, DType.FLOAT32, element, 1, "putFloat"), value);
  }

  public void putDoubles(int field, int element, double[] src, int offset, int length) {
    int at = checked(field, DType.FLOAT64, element, length, "putDoubles");
    slot.doubles().put(at / Double.BYTES, src, offset, length);
  }

  public void putDouble(int field, int element, double value) {
    slot.bytes().putDouble(checked(field, DType.FLOAT64, element, 1, "putDouble"), value);
  }

  public void putInts(int field, int element, int[] src, int offset, int length) {
    int at = checked(field, DType.INT32, element, length, "putInts");
    slot.ints().put(at / Integer.BYTES, src, offset, length);
  }

  public void putInt(int field, int element, int value) {
    slot.bytes().putInt(checked(field, DType.INT32, element, 1, "putInt"), value);
  }

  public void putLongs(int field, int element, long[] src, int offset, int length) {
    int at = checked(field, DType.INT64, element, length, "putLongs");
    slot.longs().put(at / Long.BYTES, src, offset, length);
  }

  public void putLong(int field, int element, long value) {
    slot.bytes().putLong(checked(field, DType.INT64, element, 1, "putLong"), value);
  }

  /** uint8 values, e.g. pixels. */
  public void putBytes(int field, int element, byte[] src, int offset, int length) {
    int at = checked(field, DType.UINT8, element, length, "putBytes");
    slot.bytes().put(at, src, offset, length);
  }

  /**
   * Writes uint8 pixels into a float32 field, normalized per channel by {@code normalizer} as they
   * are written: element {@code e} of the field belongs to channel {@code e / (elements /
   * channels)}, channels being the field's first dimension. The pixels' bytes are read as unsigned.
   *
   * @throws IllegalArgumentException if the field is not float32, its first dimension is not the
   *     normalizer's channel count, or the range does not fit the field
   * @throws IndexOutOfBoundsException if {@code offset} and {@code length} do not fit {@code src}
   */
  public void putNormalized(
      int field, int element, byte[] src, int offset, int length, PixelNormalizer normalizer) {
    if (offset < 0 || length < 0 || offset > src.length - length) {
      throw new IndexOutOfBoundsException(
          String.format(
              "putNormalized: %d pixels from index %d of an array of %d (expected: a range inside "
                  + "the array)",
              length, offset, src.length));
    }
    int at = checked(field, DType.FLOAT32, element, length, "putNormalized");
    int channels = normalizer.channels();
    if (leadingDims[field] != channels) {
      throw channelRefusal(field, normalizer);
    }
    int plane = elements[field] / channels;
    ByteBuffer out = slot.bytes();
    int done = 0;
    while (done < length) {
      int e = element + done;
      int channel = e / plane;
      int count = Math.min(length - done, (channel + 1) * plane - e);
      writeNormalized(
          src, offset + done, count, normalizer.table(channel), out, at + done * Float.BYTES);
      done += count;
    }
  }

  /** One channel's run: a table read and a store per pixel. */
  private static void writeNormalized(
      byte[] src, int from, int count, float[] table, ByteBuffer out, int at) {
    for (int i = 0; i < count; i++) {
      out.putFloat(at + i * Float.BYTES, table[src[from + i] & 0xff]);
    }
  }

  private RuntimeException channelRefusal(int field, PixelNormalizer normalizer) {
    Field f = schema.field(field);
    return new IllegalArgumentException(
        String.format(
            "field '%s' is %s%s: putNormalized with %d channels (expected: a normalizer with one mean "
                + "and std per entry of the field's first dimension, %d)",
            f.name(), f.dtype().label(), f.shapeText(), normalizer.channels(), leadingDims[field]));
  }

  /**
   * Sets variable-length field {@code field} ({@link Field#variable}) to {@code length} raw bytes
   * of {@code src} (values of the field's dtype in native order): an encoded image, token ids. Only
   * for a dataset whose loader has a {@link SampleTransform}, which reads the value.
   *
   * @throws IllegalArgumentException if the field is not variable-length or the length is not a
   *     whole number of values
   */
  public void putVariable(int field, byte[] src, int offset, int length) {
    if (offset < 0 || length < 0 || offset > src.length - length) {
      throw new IndexOutOfBoundsException(
          String.format(
              "putVariable: %d bytes from index %d of an array of %d (expected: a range inside "
                  + "the array)",
              length, offset, src.length));
    }
    checkVariable(field, length);
    variableSink.setVariable(field, src, offset, length);
  }

  /** {@link #putVariable(int, byte[], int, int)} with the remaining bytes of {@code src}. */
  public void putVariable(int field, ByteBuffer src) {
    checkVariable(field, src.remaining());
    variableSink.setVariable(field, src);
  }

  private void checkVariable(int field, int length) {
    schema.checkIndex(field);
    Field f = schema.field(field);
    if (!f.isVariable()) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' is %s%s: putVariable is for variable-length fields (expected: the put "
                  + "method of its dtype)",
              f.name(), f.dtype().label(), f.shapeText()));
    }
    if (variableSink == null) {
      throw new IllegalStateException(
          String.format(
              "field '%s' is variable-length: it reaches no batch (expected: a loader with a "
                  + "SampleTransform that reads it)",
              f.name()));
    }
    if (length % f.dtype().byteSize() != 0) {
      throw new IllegalArgumentException(
          String.format(
              "field '%s' is %s%s: a value of %d bytes (expected: a multiple of %d)",
              f.name(), f.dtype().label(), f.shapeText(), length, f.dtype().byteSize()));
    }
  }

  public void putByte(int field, int element, byte value) {
    slot.bytes().put(checked(field, DType.UINT8, element, 1, "putByte"), value);
  }

  /**
   * Copies the field's whole row, raw, from {@code src} at byte {@code srcIndex}: values of the
   * field's dtype in native order. The fastest way from memory already laid out like the batch.
   */
  public void copyRaw(int field, ByteBuffer src, int srcIndex) {
    Field f = schema.field(field);
    int length = (int) f.bytesPerSample();
    if (srcIndex < 0 || srcIndex > src.limit() - length) {
      throw new IndexOutOfBoundsException(
          String.format(
              "field '%s': copying %d bytes from index %d of a buffer of %d bytes",
              f.name(), length, srcIndex, src.limit()));
    }
    slot.bytes().put(layout.rowOffset(field, row), src, srcIndex, length);
    coverage.mark(field, 0, f.elements());
  }

  /**
   * Checks one put (the field, its dtype, the range of elements) and notes the elements written;
   * the byte offset to write at. One check per call, whatever the length.
   */
  private int checked(int field, DType expected, int element, int length, String method) {
    if (field < 0
        || field >= dtypes.length
        || dtypes[field] != expected
        || element < 0
        || length < 0
        || length > elements[field] - element) {
      throw refusal(field, expected, element, length, method);
    }
    coverage.mark(field, element, length);
    return columnOffsets[field] + row * rowStrides[field] + element * expected.byteSize();
  }

  /** Why a put was refused, naming the field, the values and what was expected. */
  private RuntimeException refusal(
      int field, DType expected, int element, int length, String method) {
    schema.checkIndex(field);
    Field f = schema.field(field);
    if (f.dtype() != expected) {
      return new IllegalArgumentException(
          String.format(
              "field '%s' is %s%s: %s writes %s (expected: the put method of its dtype)",
              f.name(), f.dtype().label(), f.shapeText(), method, expected.label()));
    }
    return new IllegalArgumentException(
        String.format(
            "field '%s' row %d: %d values at element %d (expected: at most %d = %s)",
            f.name(), row, length, element, f.elements(), f.shapeText()));
  }
}
