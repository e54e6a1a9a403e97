package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.pipeline.BatchLoadException;
import dev.stoker.loader.pipeline.Stage;
import dev.stoker.loader.pipeline.StagedBatch;
import dev.stoker.loader.pipeline.WorkerStatus;

/**
 * Writes one epoch of a stream: batch k takes rows {@code [k * batchSize, (k + 1) * batchSize)},
 * copied column by column from the chunks that hold them. With a known row count the stream must
 * end exactly there: a stream that ends early or runs long fails the batch where it shows.
 */
final class StreamedEpoch implements EpochSource {
  private final String loader;
  private final int epoch;
  private final BatchLayout layout;
  private final ChunkWindow window;
  private final long rowCount;
  private final boolean dropLast;
  private final ThreadLocal<ColumnTarget> targets;

  StreamedEpoch(String loader, int epoch, BatchLayout layout, ChunkWindow window, long rowCount,
      boolean dropLast, ThreadLocal<ColumnTarget> targets) {
    this.loader = loader;
    this.epoch = epoch;
    this.layout = layout;
    this.window = window;
    this.rowCount = rowCount;
    this.dropLast = dropLast;
    this.targets = targets;
  }

  @Override
  public boolean hasBatch(int batch) throws Exception {
    int rows = window.available((long) batch * layout.batchSize(), layout.batchSize());
    return dropLast ? rows == layout.batchSize() : rows > 0;
  }

  @Override
  public long sampleIndex(int batch, int row) {
    return (long) batch * layout.batchSize() + row;
  }

  @Override
  public boolean write(StagedBatch target, int batch, WorkerStatus status) throws Exception {
    int batchSize = layout.batchSize();
    long first = (long) batch * batchSize;
    status.filling(batch, batchSize);
    int rows = window.available(first, batchSize);
    boolean exists = dropLast ? rows == batchSize : rows > 0;
    if (rowCount >= 0) {
      checkLength(batch, first, rows, exists);
    } else if (!exists) {
      return false;
    }
    copyRows(target.host(), batch, first, rows);
    if (rows < batchSize) {
      zeroRows(target.host(), rows);
    }
    target.filled(rows, 0);
    return true;
  }

  /** With a known row count: the planned rows must be there, and the stream must end there. */
  private void checkLength(int batch, long first, int rows, boolean exists) throws Exception {
    long expected = Math.min(layout.batchSize(), rowCount - first);
    if (!exists || rows < expected) {
      throw new BatchLoadException(loader, Stage.FILL, epoch, batch, first + rows, String.format(
          "the stream ended after %d rows (expected: rowCount() = %d rows)", first + rows,
          rowCount), null);
    }
    long end = first + rows;
    boolean last = end >= rowCount - (dropLast ? rowCount % layout.batchSize() : 0);
    if (last && window.hasRow(rowCount)) {
      throw new BatchLoadException(loader, Stage.FILL, epoch, batch, rowCount, String.format(
          "the stream has more than rowCount() = %d rows (expected: exactly that many)",
          rowCount), null);
    }
  }

  private void copyRows(HostMemory slot, int batch, long first, int rows) throws Exception {
    ColumnTarget target = targets.get();
    try {
      int done = 0;
      while (done < rows) {
        ChunkWindow.Held held = window.chunkAt(first + done);
        int from = (int) (first + done - held.start);
        int count = Math.min(rows - done, held.rows - from);
        for (int f = 0; f < layout.schema().size(); f++) {
          copyField(held.chunk, f, from, count, slot, done, target, batch, first + done);
        }
        window.copied(held, count);
        done += count;
      }
    } finally {
      target.unbind();
    }
  }

  private void copyField(ColumnChunk chunk, int field, int from, int count, HostMemory slot,
      int row, ColumnTarget target, int batch, long streamRow) throws Exception {
    Field f = layout.schema().field(field);
    target.bind(slot, f, layout.rowOffset(field, row), count);
    try {
      chunk.copyTo(field, from, target);
    } catch (Exception e) {
      throw new BatchLoadException(loader, Stage.FILL, epoch, batch, streamRow, String.format(
          "copying field '%s' of stream rows %d..%d: %s", f.name(), streamRow,
          streamRow + count - 1, e), e);
    }
    if (target.remaining() != 0) {
      throw new BatchLoadException(loader, Stage.FILL, epoch, batch, streamRow, String.format(
          "field '%s' of stream rows %d..%d: the chunk wrote %d of %d bytes (expected: all of "
              + "them, %d per row)", f.name(), streamRow, streamRow + count - 1,
          target.bytes() - target.remaining(), target.bytes(), target.rowBytes()), null);
    }
  }

  private void zeroRows(HostMemory slot, int fromRow) {
    for (int f = 0; f < layout.schema().size(); f++) {
      int start = layout.rowOffset(f, fromRow);
      slot.zero(start, (layout.batchSize() - fromRow) * layout.rowStride(f));
    }
  }

  @Override
  public void close() throws Exception {
    window.close();
  }
}
