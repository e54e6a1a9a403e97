package dev.stoker.loader;

import dev.stoker.loader.memory.HostMemory;
import dev.stoker.loader.pipeline.StagedBatch;
import dev.stoker.loader.pipeline.WorkerStatus;

/**
 * Writes one epoch of a stream: batch k takes rows {@code [k * batchSize, (k + 1) * batchSize)},
 * copied column by column from the chunks that hold them, one chunk after the other (so that a
 * stream reusing chunk memory can go on while the batch is written). With a known row count the
 * stream must end exactly there: a stream that ends early fails the batch whose rows are missing,
 * one that runs long (or ends inside the dropped tail) fails the last batch.
 */
final class StreamedEpoch implements EpochSource {
  private final String loader;
  private final int epoch;
  private final BatchLayout layout;
  private final ChunkWindow window;
  private final long rowCount;
  private final boolean dropLast;

  /** The last batch when the row count is known (-1 if none), else -2. */
  private final int lastBatch;

  private final ThreadLocal<ColumnTarget> targets;

  /** The per-sample transform's rows, or null: fields are copied in bulk. */
  private final TransformedRows transformed;

  /**
   * @param rowCount the rows the stream must have, or {@link StreamedDataset#UNKNOWN_ROWS}
   * @param batchCount the batches planned from the row count, or -1
   */
  StreamedEpoch(
      String loader,
      int epoch,
      BatchLayout layout,
      ChunkWindow window,
      long rowCount,
      int batchCount,
      boolean dropLast,
      ThreadLocal<ColumnTarget> targets,
      TransformedRows transformed) {
    this.loader = loader;
    this.epoch = epoch;
    this.layout = layout;
    this.window = window;
    this.rowCount = rowCount;
    this.lastBatch = batchCount - 1;
    this.dropLast = dropLast;
    this.targets = targets;
    this.transformed = transformed;
  }

  @Override
  public long sampleIndex(int batch, int row) {
    return (long) batch * layout.batchSize() + row;
  }

  @Override
  public boolean write(StagedBatch target, int batch, WorkerStatus status) throws Exception {
    int batchSize = layout.batchSize();
    long first = (long) batch * batchSize;
    int wanted =
        rowCount < 0 ? batchSize : (int) Math.max(0, Math.min(batchSize, rowCount - first));
    status.filling(batch, wanted);
    int[] written = {0};
    int rows = copyRows(target.host(), batch, first, wanted, status, written);
    if (rowCount >= 0) {
      if (rows < wanted) {
        throw new BatchLoadException(
            loader,
            Stage.FILL,
            epoch,
            batch,
            first + rows,
            String.format(
                "the stream ended after %d rows (expected: rowCount() = %d rows)",
                first + rows, rowCount),
            null);
      }
      if (batch == lastBatch) {
        checkEnd(batch);
      }
    } else if (rows == 0 || (dropLast && rows < batchSize)) {
      return false;
    }
    int valid = transformed == null ? rows : written[0];
    if (valid < batchSize) {
      layout.zeroRows(target.host(), valid);
    }
    target.filled(valid, rows - valid);
    return true;
  }

  /** At the last batch of a known row count: the stream must end exactly at the row count. */
  private void checkEnd(int batch) throws Exception {
    long rows = reach(batch, rowCount, rowCount + 1);
    if (rows < rowCount) {
      throw new BatchLoadException(
          loader,
          Stage.FILL,
          epoch,
          batch,
          rows,
          String.format(
              "the stream ended after %d rows, in the %d rows dropLast drops (expected: rowCount() = "
                  + "%d rows)",
              rows, rowCount % layout.batchSize(), rowCount),
          null);
    }
    if (rows > rowCount) {
      throw new BatchLoadException(
          loader,
          Stage.FILL,
          epoch,
          batch,
          rowCount,
          String.format(
              "the stream has more than rowCount() = %d rows (expected: exactly that many)",
              rowCount),
          null);
    }
  }

  /**
   * Copies rows {@code [first, first + wanted)} as far as the stream has them; returns how many. If
   * the copy fails, the rows left are abandoned: no chunk waits for them any more. With a
   * transform, {@code written[0]} ends as the rows the batch holds: those whose sample was not
   * skipped.
   */
  private int copyRows(
      HostMemory slot, int batch, long first, int wanted, WorkerStatus status, int[] written)
      throws Exception {
    ColumnTarget target = targets.get();
    int done = 0;
    try {
      while (done < wanted) {
        long row = first + done;
        status.sample(done, (int) Math.min(row, Integer.MAX_VALUE));
        ChunkWindow.Held held = acquire(batch, row);
        if (held == null) {
          break;
        }
        int copied = 0;
        try {
          int from = (int) (row - held.start);
          int count = Math.min(wanted - done, held.rows - from);
          if (transformed != null) {
            written[0] =
                transformed.write(held.chunk, from, count, row, slot, written[0], target, batch);
          } else {
            for (int f = 0; f < layout.schema().size(); f++) {
              copyField(held.chunk, f, from, count, slot, done, target, batch, row);
            }
          }
          copied = count;
        } finally {
          window.release(held, copied);
        }
        done += copied;
      }
    } catch (Throwable t) {
      window.abandon(first + done, first + wanted);
      throw t;
    } finally {
      target.unbind();
    }
    return done;
  }

  private ChunkWindow.Held acquire(int batch, long row) throws Exception {
    try {
      return window.acquire(row);
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) {
      throw readFailed(batch, row, t);
    }
  }

  private long reach(int batch, long row, long rows) throws Exception {
    try {
      return window.reach(rows);
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) {
      throw readFailed(batch, row, t);
    }
  }

  private BatchLoadException readFailed(int batch, long row, Throwable t) {
    return new BatchLoadException(
        loader,
        Stage.FILL,
        epoch,
        batch,
        row,
        String.format("reading the stream for row %d: %s", row, t),
        t);
  }

  private void copyField(
      ColumnChunk chunk,
      int field,
      int from,
      int count,
      HostMemory slot,
      int row,
      ColumnTarget target,
      int batch,
      long streamRow)
      throws Exception {
    Field f = layout.schema().field(field);
    target.bind(slot, f, layout.rowOffset(field, row), count);
    try {
      chunk.copyTo(field, from, target);
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) {
      throw new BatchLoadException(
          loader,
          Stage.FILL,
          epoch,
          batch,
          streamRow,
          String.format(
              "copying field '%s' of stream rows %d..%d: %s",
              f.name(), streamRow, streamRow + count - 1, t),
          t);
    }
    if (target.remaining() != 0) {
      throw new BatchLoadException(
          loader,
          Stage.FILL,
          epoch,
          batch,
          streamRow,
          String.format(
              "field '%s' of stream rows %d..%d: the chunk wrote %d of %d bytes (expected: all of "
                  + "them, %d per row)",
              f.name(),
              streamRow,
              streamRow + count - 1,
              target.bytes() - target.remaining(),
              target.bytes(),
              target.rowBytes()),
          null);
    }
  }

  @Override
  public void cancel() {
    window.cancel();
  }

  @Override
  public void close() throws Exception {
    window.close();
  }
}
