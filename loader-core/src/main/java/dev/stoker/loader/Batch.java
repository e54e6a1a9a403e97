package dev.stoker.loader;

import dev.stoker.loader.device.DeviceBuffer;
import dev.stoker.loader.device.DeviceEvent;
import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.pipeline.StagedBatch;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One batch handed to the consumer: {@link #capacity()} rows of every field of the schema, laid out
 * column by column (see {@link BatchLayout}), of which the first {@link #size()} are valid. On the
 * CPU device it is read in host memory; on another device through {@link #deviceColumn(String)} and
 * {@link #deviceEvent()}.
 *
 * <p>A batch is valid until it is closed, or until the next batch is asked for from the same
 * iterator, or its epoch or loader is closed, whichever comes first; its memory then holds other
 * batches. Every batch handed out is an object of its own: reading one through its methods once it
 * is no longer valid is an {@link IllegalStateException} naming it and saying why. The views it
 * gives ({@link #buffer()}, {@link #column(String)}) have their own position, limit and byte order;
 * a view kept past the batch's life shows whatever the memory holds later, but never freed memory.
 */
public final class Batch implements AutoCloseable {
  private static final int OPEN = 0;
  private static final int CLOSED = 1;
  private static final int SUPERSEDED = 2;
  private static final int EPOCH_CLOSED = 3;

  private final BatchIterator owner;

  /** Null once the batch ended, so that a batch kept past its life keeps no memory reachable. */
  private StagedBatch staged;

  private final boolean onDevice;
  private final int epoch;
  private final int index;
  private final int size;
  private final int skipped;

  /** Guarded by {@code this}: every read holds it, so memory is never let go of mid-read. */
  private int state;

  Batch(BatchIterator owner, StagedBatch staged) {
    this.owner = owner;
    this.staged = staged;
    this.onDevice = staged.device() != null;
    this.epoch = staged.epoch();
    this.index = staged.index();
    this.size = staged.rows();
    this.skipped = staged.skipped();
  }

  /** Returns the batch's memory to the loader; a second call does nothing. */
  @Override
  public void close() {
    end(CLOSED);
  }

  /** Ends the batch for {@code reason}; returns its memory if it was still open. */
  void end(int reason) {
    StagedBatch ended;
    synchronized (this) {
      if (state != OPEN) {
        return;
      }
      state = reason;
      ended = staged;
      staged = null;
      owner.returnStarted(); // before any other thread can see the batch ended
    }
    owner.release(this, ended);
  }

  void supersede() {
    end(SUPERSEDED);
  }

  void epochClosed() {
    end(EPOCH_CLOSED);
  }

  public synchronized boolean isOpen() {
    return state == OPEN;
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

  /** Rows the batch has room for: the loader's batchSize. */
  public int capacity() {
    return owner.layout().batchSize();
  }

  /** Samples of this batch left out under onBadSample=skip. */
  public int skipped() {
    return skipped;
  }

  public Schema schema() {
    return owner.layout().schema();
  }

  public BatchLayout layout() {
    return owner.layout();
  }

  /** Whether the batch is in device memory (read it with the device methods). */
  public boolean onDevice() {
    return onDevice;
  }

  /**
   * Where row {@code row} came from: the dataset index of its sample (for a map dataset), or its
   * position in the epoch's stream. For a map dataset only without skipped samples, since a skip
   * shifts the rows after it.
   */
  public synchronized long sampleIndex(int row) {
    checkValid();
    if (skipped > 0) {
      throw new IllegalStateException(
          this
              + ": "
              + skipped
              + " sample(s) were skipped, so rows no longer map to sampler positions");
    }
    if (row < 0 || row >= size) {
      throw new IndexOutOfBoundsException(
          "row: " + row + " (expected: 0 <= row < size = " + size + ")");
    }
    return owner.sampleIndex(index, row);
  }

  /**
   * A read-only view of the whole batch, native order, position 0, columns at {@link
   * BatchLayout#columnOffset(int)}. Allocates a view.
   */
  public synchronized ByteBuffer buffer() {
    return host().readOnlyView();
  }

  /** A read-only view of one column's valid rows, native order, position 0. Allocates a view. */
  public synchronized ByteBuffer column(String field) {
    HostMemory memory = host();
    BatchLayout layout = owner.layout();
    int f = layout.schema().indexOf(field);
    return memory
        .readOnlyView()
        .position(layout.columnOffset(f))
        .limit(layout.columnOffset(f) + size * layout.rowStride(f))
        .slice()
        .order(ByteOrder.nativeOrder());
  }

  public synchronized float getFloat(int field, int row, int element) {
    return host().bytes().getFloat(at(field, DType.FLOAT32, row, element));
  }

  public synchronized double getDouble(int field, int row, int element) {
    return host().bytes().getDouble(at(field, DType.FLOAT64, row, element));
  }

  public synchronized int getInt(int field, int row, int element) {
    return host().bytes().getInt(at(field, DType.INT32, row, element));
  }

  public synchronized long getLong(int field, int row, int element) {
    return host().bytes().getLong(at(field, DType.INT64, row, element));
  }

  /** A uint8 value as 0..255. */
  public synchronized int getUInt8(int field, int row, int element) {
    return Byte.toUnsignedInt(host().bytes().get(at(field, DType.UINT8, row, element)));
  }

  /** Copies row {@code row} of a float32 field into {@code dst} at {@code offset}. */
  public synchronized void copyFloats(int field, int row, float[] dst, int offset) {
    int at = at(field, DType.FLOAT32, row, 0);
    host().floats().get(at / Float.BYTES, dst, offset, schema().field(field).elements());
  }

  /** Copies row {@code row} of a uint8 field into {@code dst} at {@code offset}. */
  public synchronized void copyBytes(int field, int row, byte[] dst, int offset) {
    int at = at(field, DType.UINT8, row, 0);
    host().bytes().get(at, dst, offset, schema().field(field).elements());
  }

  /** The device buffer holding the batch. */
  public synchronized DeviceBuffer deviceBuffer() {
    return device();
  }

  /** Column {@code field} in device memory: its address, dtype and shape. */
  public synchronized DeviceColumn deviceColumn(String field) {
    DeviceBuffer buffer = device();
    BatchLayout layout = owner.layout();
    int f = layout.schema().indexOf(field);
    Field column = layout.schema().field(f);
    int[] own = column.shape();
    int[] shape = new int[own.length + 1];
    shape[0] = layout.batchSize();
    System.arraycopy(own, 0, shape, 1, own.length);
    return new DeviceColumn(
        column.name(),
        column.dtype(),
        shape,
        buffer.address() + layout.columnOffset(f),
        layout.columnBytes(f));
  }

  /** Completes when the batch's copy to the device has; a consumer's stream can wait on it. */
  public synchronized DeviceEvent deviceEvent() {
    return device().event();
  }

  private HostMemory host() {
    checkValid();
    if (staged.host() == null) {
      throw new IllegalStateException(
          this
              + " is on device '"
              + staged.device().deviceName()
              + "': read it there (deviceColumn), or load with the CPU device to read it on the host");
    }
    return staged.host();
  }

  private DeviceBuffer device() {
    checkValid();
    if (staged.device() == null) {
      throw new IllegalStateException(
          this
              + " is in host memory (the loader's device is the "
              + "CPU): read it with buffer(), column() or the get methods");
    }
    return staged.device();
  }

  private int at(int field, DType expected, int row, int element) {
    Field f = owner.layout().schema().field(field);
    if (f.dtype() != expected) {
      throw new IllegalArgumentException(
          String.format("field '%s' is %s, not %s", f.name(), f.dtype().label(), expected.label()));
    }
    if (row < 0 || row >= size || element < 0 || element >= f.elements()) {
      throw new IndexOutOfBoundsException(
          String.format(
              "field '%s': row %d element %d (expected: row < size = %d, element < %d = %s)",
              f.name(), row, element, size, f.elements(), f.shapeText()));
    }
    return owner.layout().rowOffset(field, row) + element * expected.byteSize();
  }

  /** Called holding {@code this}. */
  private void checkValid() {
    if (state == OPEN) {
      return;
    }
    String why =
        switch (state) {
          case CLOSED -> "it was closed";
          case SUPERSEDED ->
              "the next batch was asked for (a batch is valid until then; copy what "
                  + "you need to keep)";
          default -> "its epoch was closed";
        };
    throw new IllegalStateException(
        String.format(
            "batch %d of epoch %d (loader '%s') is no longer valid: %s; its memory now holds other "
                + "batches",
            index, epoch, owner.loaderName(), why));
  }

  @Override
  public String toString() {
    return "Batch[epoch "
        + epoch
        + ", index "
        + index
        + ", "
        + size
        + "/"
        + capacity()
        + " rows"
        + (isOpen() ? "" : ", no longer valid")
        + "]";
  }
}
