package dev.stoker.loader;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chunks of one epoch's stream that workers are still copying from. Chunks are pulled in order,
 * by one thread at a time, only as far as a batch needs; a chunk is closed as soon as every row of
 * it that a batch will take has been copied, so that a stream reusing chunk memory can go on.
 * Rows past {@code neededRows} (the tail that {@code dropLast} drops) are never waited for.
 */
final class ChunkWindow {
  private static final Logger LOG = LoggerFactory.getLogger(ChunkWindow.class);

  /** A pulled chunk: where it starts in the stream, and how many needed rows are not copied. */
  static final class Held {
    final ColumnChunk chunk;
    final long start;
    final int rows;
    long pending;

    Held(ColumnChunk chunk, long start, int rows, long pending) {
      this.chunk = chunk;
      this.start = start;
      this.rows = rows;
      this.pending = pending;
    }
  }

  private final ChunkStream stream;
  private final long neededRows;
  private final Object pullLock = new Object();
  private final ArrayDeque<Held> held = new ArrayDeque<>();
  private long pulledRows;
  private boolean ended;
  private boolean closed;

  ChunkWindow(ChunkStream stream, long neededRows) {
    this.stream = stream;
    this.neededRows = neededRows;
  }

  /**
   * Rows of the stream from row {@code first}, up to {@code count}, pulling chunks as needed;
   * fewer than {@code count} only at the end of the stream.
   */
  int available(long first, int count) throws Exception {
    long want = first + count;
    while (true) {
      synchronized (this) {
        if (pulledRows >= want || ended) {
          return (int) Math.max(0, Math.min(pulledRows, want) - first);
        }
      }
      pull(want);
    }
  }

  /** Whether the stream has a row at {@code row}: pulls up to it. */
  boolean hasRow(long row) throws Exception {
    return available(row, 1) == 1;
  }

  private void pull(long want) throws Exception {
    synchronized (pullLock) {
      synchronized (this) {
        if (pulledRows >= want || ended || closed) {
          ended |= closed;
          return;
        }
      }
      ColumnChunk chunk = stream.next();
      Held added = null;
      synchronized (this) {
        if (chunk == null) {
          ended = true;
          return;
        }
        int rows = chunk.rows();
        if (rows < 0) {
          throw new IllegalStateException("a chunk of the stream at row " + pulledRows + " has "
              + rows + " rows (expected: >= 0)");
        }
        long start = pulledRows;
        pulledRows += rows;
        long pending = Math.max(0, Math.min(pulledRows, neededRows) - start);
        if (pending > 0 && !closed) {
          added = new Held(chunk, start, rows, pending);
          held.add(added);
        }
      }
      if (added == null) {
        closeQuietly(chunk);
      }
    }
  }

  /** The pulled chunk holding row {@code row}; the row must have been made available. */
  synchronized Held chunkAt(long row) {
    for (Held h : held) {
      if (row >= h.start && row < h.start + h.rows) {
        return h;
      }
    }
    throw new IllegalStateException("row " + row + " is not in any chunk held ("
        + held.size() + " held, " + pulledRows + " rows pulled)");
  }

  /** {@code rows} rows of {@code h} were copied; closes it once all its needed rows were. */
  void copied(Held h, int rows) {
    boolean done;
    synchronized (this) {
      h.pending -= rows;
      done = h.pending <= 0 && held.remove(h);
    }
    if (done) {
      closeQuietly(h.chunk);
    }
  }

  /** Closes every chunk still held, then the stream. */
  void close() throws Exception {
    ArrayDeque<Held> left;
    synchronized (this) {
      closed = true;
      left = new ArrayDeque<>(held);
      held.clear();
    }
    for (Iterator<Held> it = left.iterator(); it.hasNext(); ) {
      closeQuietly(it.next().chunk);
    }
    stream.close();
  }

  private static void closeQuietly(ColumnChunk chunk) {
    try {
      chunk.close();
    } catch (Throwable t) {
      LOG.warn("closing a chunk of a stream failed", t);
    }
  }
}
