package dev.stoker.loader.tokens;

import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.ColumnTarget;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The column buffers of one stream's chunks of rows, handed back when a chunk is closed and taken
 * again by a later chunk. A chunk of rows is hundreds of kilobytes, written once and copied once:
 * allocating and zeroing new buffers for each chunk (of 4 MiB then) cost a packing rank about a
 * seventh of its time. Reused buffers are not cleared, so a {@link RowBuilder} writes every element
 * of every row that it completes. Safe for one thread taking while others close chunks.
 */
final class ColumnBuffers {
  /** Sets of buffers kept for reuse; more are allocated while chunks are held, then dropped. */
  private static final int SPARE_SETS = 4;

  private final long[] bytes;
  private final ArrayBlockingQueue<ByteBuffer[]> spare = new ArrayBlockingQueue<>(SPARE_SETS);

  /**
   * @param bytes each column's size in bytes
   * @throws IllegalArgumentException when a column would be too large for one buffer
   */
  ColumnBuffers(long... bytes) {
    for (long b : bytes) {
      if (b < 0 || b > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(
            b + " bytes for one column of a chunk (expected: fewer rows per chunk)");
      }
    }
    this.bytes = bytes.clone();
  }

  /** A set of buffers, one per column, in native order, holding whatever they held before. */
  ByteBuffer[] take() {
    ByteBuffer[] set = spare.poll();
    if (set != null) {
      return set;
    }
    set = new ByteBuffer[bytes.length];
    for (int c = 0; c < bytes.length; c++) {
      set[c] = ByteBuffer.allocate((int) bytes[c]).order(ByteOrder.nativeOrder());
    }
    return set;
  }

  /**
   * The first {@code rows} rows of {@code set} (from {@link #take}) as a chunk whose first {@link
   * ColumnChunk#close} hands the set back; a later close does nothing.
   */
  ColumnChunk chunk(int rows, ByteBuffer[] set) {
    ByteBuffer[] views = new ByteBuffer[set.length];
    for (int c = 0; c < set.length; c++) {
      views[c] = set[c].duplicate().order(ByteOrder.nativeOrder());
    }
    ColumnChunk rowsOf = ColumnChunk.ofBuffers(rows, views);
    AtomicBoolean open = new AtomicBoolean(true);
    return new ColumnChunk() {
      @Override
      public int rows() {
        return rowsOf.rows();
      }

      @Override
      public void copyTo(int field, int fromRow, ColumnTarget target) throws Exception {
        if (!open.get()) {
          throw new IllegalStateException(
              "a chunk of token rows was copied from after it was closed (expected: copies before "
                  + "close)");
        }
        rowsOf.copyTo(field, fromRow, target);
      }

      @Override
      public void close() {
        if (open.compareAndSet(true, false)) {
          spare.offer(set);
        }
      }
    };
  }
}
