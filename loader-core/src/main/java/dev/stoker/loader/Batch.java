package dev.stoker.loader;

import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.pipeline.DeviceAttachment;
import dev.stoker.loader.sampler.EpochBatches;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One batch: {@link #capacity()} rows of every field of the schema, laid out column by column in
 * one slot (see {@link BatchLayout}), of which the first {@link #size()} are valid. With a device
 * other than the CPU, {@link #deviceBuffer()} holds the device copy.
 *
 * <p>A batch is valid until it is closed, or until the next batch is asked for from the same
 * iterator, whichever comes first; its slot is then reused (and this object with it). Reading a
 * closed batch is an error.
 */
public final class Batch implements AutoCloseable, DeviceAttachment {
  private final BatchLayout layout;
  private final HostMemory memory;
  private BatchIterator owner;
  private EpochBatches plan;
  private int epoch;
  private int index;
  private int size;
  private int skipped;
  private DeviceBuffer device;
  private volatile boolean open;

  Batch(BatchLayout layout, HostMemory memory) {
    this.layout = layout;
    this.memory = memory;
  }

  /** Records what the worker wrote into the slot. */
  void filled(EpochBatches plan, int index, int size, int skipped) {
    this.plan = plan;
    this.epoch = plan.epoch();
    this.index = index;
    this.size = size;
    this.skipped = skipped;
  }

  /** Hands the batch to the consumer of {@code iterator}. */
  synchronized void open(BatchIterator iterator) {
    this.owner = iterator;
    this.open = true;
  }

  HostMemory memory() {
    return memory;
  }

  /** Returns the slot to the loader; a second call does nothing. */
  @Override
  public void close() {
    BatchIterator from;
    synchronized (this) {
      if (!open) {
        return;
      }
      open = false;
      from = owner;
    }
    from.release(this);
  }

  public synchronized boolean isOpen() {
    return open;
  }

  public int epoch() {
    return epoch;
  }

  /** Position of this batch in its epoch, from 0. */
  public int index() {
    return index;
  }

  /** Valid rows: batchSize, or fewer for a kept short tail or skipped samples. */
  public int size() {
    return size;
  }

  /** Rows the slot has room for: the loader's batchSize. */
  public int capacity() {
    return layout.batchSize();
  }

  /** Samples of this batch left out under onBadSample=skip. */
  public int skipped() {
    return skipped;
  }

  public Schema schema() {
    return layout.schema();
  }

  public BatchLayout layout() {
    return layout;
  }

  /**
   * The dataset index of the sample in row {@code row}; only without skipped samples, since a
   * skip shifts the rows after it.
   */
  public int sampleIndex(int row) {
    checkOpen();
    if (skipped > 0) {
      throw new IllegalStateException("batch " + index + " of epoch " + epoch + ": " + skipped
          + " sample(s) were skipped, so rows no longer map to sampler positions");
    }
    return plan.sampleIndex(index, row);
  }

  /** The whole slot, native order, columns at {@link BatchLayout#columnOffset(int)}. */
  public ByteBuffer buffer() {
    checkOpen();
    return memory.bytes();
  }

  /** A read-only view of one column's valid rows, native order, position 0. Allocates a view. */
  public ByteBuffer column(String field) {
    checkOpen();
    int f = layout.schema().indexOf(field);
    int start = layout.columnOffset(f);
    return memory.bytes().slice(start, size * layout.rowStride(f)).asReadOnlyBuffer()
        .order(ByteOrder.nativeOrder());
  }

  public float getFloat(int field, int row, int element) {
    return memory.bytes().getFloat(at(field, DType.FLOAT32, row, element));
  }

  public double getDouble(int field, int row, int element) {
    return memory.bytes().getDouble(at(field, DType.FLOAT64, row, element));
  }

  public int getInt(int field, int row, int element) {
    return memory.bytes().getInt(at(field, DType.INT32, row, element));
  }

  public long getLong(int field, int row, int element) {
    return memory.bytes().getLong(at(field, DType.INT64, row, element));
  }

  /** A uint8 value as 0..255. */
  public int getUInt8(int field, int row, int element) {
    return Byte.toUnsignedInt(memory.bytes().get(at(field, DType.UINT8, row, element)));
  }

  /** Copies row {@code row} of a float32 field into {@code dst} at {@code offset}. */
  public void copyFloats(int field, int row, float[] dst, int offset) {
    int at = at(field, DType.FLOAT32, row, 0);
    memory.floats().get(at / Float.BYTES, dst, offset, layout.schema().field(field).elements());
  }

  /** The device copy, or null on the CPU device. */
  public DeviceBuffer deviceBuffer() {
    checkOpen();
    return device;
  }

  @Override
  public void attachDevice(DeviceBuffer buffer) {
    this.device = buffer;
  }

  @Override
  public DeviceBuffer detachDevice() {
    DeviceBuffer buffer = device;
    device = null;
    return buffer;
  }

  private int at(int field, DType expected, int row, int element) {
    checkOpen();
    Field f = layout.schema().field(field);
    if (f.dtype() != expected) {
      throw new IllegalArgumentException(String.format("field '%s' is %s, not %s", f.name(),
          f.dtype().label(), expected.label()));
    }
    if (row < 0 || row >= size || element < 0 || element >= f.elements()) {
      throw new IndexOutOfBoundsException(String.format(
          "field '%s': row %d element %d (expected: row < size = %d, element < %d = %s)",
          f.name(), row, element, size, f.elements(), f.shapeText()));
    }
    return layout.rowOffset(field, row) + element * expected.byteSize();
  }

  private void checkOpen() {
    if (!open) {
      throw new IllegalStateException("the batch is closed: its slot has been returned for reuse "
          + "(read a batch before closing it or asking for the next one)");
    }
  }

  @Override
  public String toString() {
    return "Batch[epoch " + epoch + ", index " + index + ", " + size + "/" + capacity()
        + " rows" + (open ? "" : ", closed") + "]";
  }
}
