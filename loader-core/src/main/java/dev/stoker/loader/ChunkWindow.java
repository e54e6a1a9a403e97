package dev.stoker.loader;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chunks of one epoch's stream that loading threads are still copying from. Chunks are pulled
 * in order, by one thread at a time, only as far as a row asked for; a chunk is closed as soon as
 * every row of it that a batch will take has been copied, so that a stream reusing chunk memory can
 * go on. Rows past {@code neededRows} (the tail that {@code dropLast} drops) are not held: their
 * chunks are closed as soon as they are pulled. A failed pull fails every later one, since the
 * stream's place is then lost.
 *
 * <p>{@link #close()} closes each chunk once no thread copies from it, and the stream once no
 * thread pulls from it and its chunks are closed: whichever thread comes last does it, so that
 * nothing is closed under a thread still using it.
 *
 * <p>A stream may yield chunks of 0 rows, but not endlessly: a run of {@link #MAX_EMPTY_CHUNKS} of
 * them in a row, or one that lasts longer than the loader's timeout (when it has one), is a failure
 * of the stream. {@link #cancel()} stops the pulling at the next chunk.
 */
final class ChunkWindow {
  /**
   * The most chunks of 0 rows a stream may yield in a row: far more than any reader of real data
   * yields (a filtered scan of 4096-row batches would have to drop four billion rows in a row), few
   * enough that an endless run fails in about a second rather than spinning forever.
   */
  static final int MAX_EMPTY_CHUNKS = 1 << 20;

  private static final Logger LOG = LoggerFactory.getLogger(ChunkWindow.class);

  /** A pulled chunk: where it starts in the stream, its needed rows not yet copied, its users. */
  static final class Held {
    final ColumnChunk chunk;
    final long start;
    final int rows;
    private long pending;
    private int users;

    private Held(ColumnChunk chunk, long start, int rows, long pending) {
      this.chunk = chunk;
      this.start = start;
      this.rows = rows;
      this.pending = pending;
    }

    boolean holds(long row) {
      return row >= start && row < start + rows;
    }
  }

  private final ChunkStream stream;
  private final long neededRows;
  private final long timeoutNanos;

  /** Chunks of 0 rows pulled in a row, and when the run began; only the pulling thread. */
  private int emptyRun;

  private long emptyRunStart;
  private volatile boolean cancelled;
  private final ArrayDeque<Held> held = new ArrayDeque<>();

  /** Row ranges {from, to} that no batch will copy any more: their batch failed. */
  private final List<long[]> abandoned = new ArrayList<>();

  private long pulledRows;
  private int pulledChunks;
  private boolean ended;
  private Throwable failure;
  private boolean pulling;
  private boolean closed;
  private boolean streamClosed;

  /**
   * @param neededRows rows that batches take; chunks past them are closed once pulled
   * @param timeoutNanos the loader's timeout (0: none), the longest run of empty chunks
   */
  ChunkWindow(ChunkStream stream, long neededRows, long timeoutNanos) {
    this.stream = stream;
    this.neededRows = neededRows;
    this.timeoutNanos = timeoutNanos;
  }

  /** The epoch is over: pulling stops at the next chunk, as if the stream had ended there. */
  void cancel() {
    cancelled = true;
    synchronized (this) {
      notifyAll();
    }
  }

  /**
   * Pulls until {@code rows} rows have been pulled, or the stream ended (or the window was closed);
   * returns the rows pulled, which may be more. One thread pulls at a time; the others wait for
   * what it pulls rather than for it to finish, since it may wait in {@code next()} for them to
   * copy and close the chunk before.
   */
  long reach(long rows) throws Exception {
    while (true) {
      synchronized (this) {
        while (true) {
          if (pulledRows >= rows || ended || closed || cancelled) {
            return pulledRows;
          }
          if (failure != null) {
            throw new IllegalStateException(
                "reading the stream failed before, after " + pulledRows + " rows: " + failure,
                failure);
          }
          if (!pulling) {
            pulling = true;
            break;
          }
          wait();
        }
      }
      pullOne();
    }
  }

  /**
   * The chunk holding row {@code row}, pulling up to it, for copying from; null if the stream ended
   * (or the window was closed) before that row. Give it back with {@link #release}.
   */
  Held acquire(long row) throws Exception {
    if (reach(row + 1) <= row) {
      return null;
    }
    synchronized (this) {
      Held h = holding(row);
      if (h != null) {
        h.users++;
        return h;
      }
      if (closed || cancelled) {
        return null;
      }
      throw new IllegalStateException(
          "row "
              + row
              + " of the stream is in no chunk held ("
              + held.size()
              + " held, "
              + pulledRows
              + " rows pulled): it was copied before");
    }
  }

  /**
   * Gives back a chunk from {@link #acquire} after {@code copiedRows} of its needed rows were
   * copied; closes it once all of them were (or the window is closed) and no one else uses it.
   */
  void release(Held h, int copiedRows) {
    boolean done;
    synchronized (this) {
      h.users--;
      h.pending -= copiedRows;
      done = h.users == 0 && (h.pending <= 0 || closed) && held.remove(h);
    }
    if (done) {
      closeQuietly(h.chunk);
      finishQuietly();
    }
  }

  /**
   * The held chunk with row {@code row}, or null; called holding {@code this}. The first and the
   * last chunk are looked at before the others, so the usual case allocates no iterator.
   */
  private Held holding(long row) {
    Held first = held.peekFirst();
    if (first == null || first.holds(row)) {
      return first;
    }
    Held last = held.peekLast();
    if (last.holds(row)) {
      return last;
    }
    for (Held h : held) {
      if (h.holds(row)) {
        return h;
      }
    }
    return null;
  }

  /**
   * Rows {@code [from, to)} will not be copied, since their batch failed: chunks no longer wait for
   * them, so that the stream can go on to the batches after it.
   */
  void abandon(long from, long to) {
    List<Held> done = new ArrayList<>();
    synchronized (this) {
      long end = Math.min(to, neededRows);
      if (from >= end) {
        return;
      }
      abandoned.add(new long[] {from, end});
      for (Held h : held) {
        h.pending -= overlap(h.start, h.start + h.rows, from, end);
      }
      held.removeIf(h -> h.users == 0 && h.pending <= 0 && done.add(h));
    }
    for (Held h : done) {
      closeQuietly(h.chunk);
    }
    finishQuietly();
  }

  private static long overlap(long start, long end, long from, long to) {
    return Math.max(0, Math.min(end, to) - Math.max(start, from));
  }

  private void pullOne() throws Exception {
    try {
      add(stream.next());
    } catch (Throwable t) {
      synchronized (this) {
        failure = t;
      }
      throw t;
    } finally {
      synchronized (this) {
        pulling = false;
        notifyAll();
      }
      finishQuietly();
    }
  }

  /**
   * Takes in a chunk just pulled (null: the end); closes it at once unless rows of it are needed.
   * Called by the one thread pulling, the only one that changes the counts.
   */
  private void add(ColumnChunk chunk) throws Exception {
    if (chunk == null) {
      synchronized (this) {
        ended = true;
      }
      return;
    }
    int rows;
    try {
      rows = chunk.rows();
    } catch (Throwable t) {
      closeQuietly(chunk);
      throw t;
    }
    if (rows < 0) {
      closeQuietly(chunk);
      throw new IllegalStateException(
          String.format(
              "chunk %d of the stream (after %d rows) has " + "%d rows (expected: >= 0)",
              pulledChunks, pulledRows, rows));
    }
    if (rows == 0) {
      closeQuietly(chunk);
      countEmpty();
      return;
    }
    emptyRun = 0;
    Held added = null;
    synchronized (this) {
      long start = pulledRows;
      pulledRows += rows;
      pulledChunks++;
      long pending = Math.max(0, Math.min(pulledRows, neededRows) - start);
      for (long[] range : abandoned) {
        pending -= overlap(start, pulledRows, range[0], range[1]);
      }
      if (pending > 0 && !closed) {
        added = new Held(chunk, start, rows, pending);
        held.add(added);
      }
    }
    if (added == null) {
      closeQuietly(chunk);
    }
  }

  /** One more chunk of 0 rows in a row: a failure once the run is too long. */
  private void countEmpty() {
    long now = timeoutNanos > 0 ? System.nanoTime() : 0;
    if (emptyRun++ == 0) {
      emptyRunStart = now;
    }
    synchronized (this) {
      pulledChunks++;
    }
    if (emptyRun >= MAX_EMPTY_CHUNKS) {
      throw new IllegalStateException(
          String.format(
              "the stream gave %d chunks of 0 rows in a "
                  + "row, after %d rows (expected: chunks with rows, or null at its end)",
              emptyRun, pulledRows));
    }
    if (timeoutNanos > 0 && now - emptyRunStart > timeoutNanos) {
      throw new IllegalStateException(
          String.format(
              "the stream gave %d chunks of 0 rows in a "
                  + "row for longer than timeout=%d ms, after %d rows (expected: chunks with rows, or "
                  + "null at its end)",
              emptyRun, timeoutNanos / 1_000_000, pulledRows));
    }
  }

  /**
   * Closes every chunk no thread is copying from, and the stream once no thread pulls from it and
   * its last chunk is closed (then by the thread that comes last). Safe to call twice.
   */
  void close() throws Exception {
    List<Held> idle = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      held.removeIf(h -> h.users == 0 && idle.add(h));
      notifyAll();
    }
    for (Held h : idle) {
      closeQuietly(h.chunk);
    }
    if (finishing()) {
      stream.close();
    }
  }

  /** Whether the stream is now to be closed, by the caller: closed, unused, every chunk closed. */
  private synchronized boolean finishing() {
    if (!closed || streamClosed || pulling || !held.isEmpty()) {
      return false;
    }
    streamClosed = true;
    return true;
  }

  private void finishQuietly() {
    if (finishing()) {
      try {
        stream.close();
      } catch (Throwable t) {
        LOG.warn("closing a stream failed", t);
      }
    }
  }

  private static void closeQuietly(ColumnChunk chunk) {
    try {
      chunk.close();
    } catch (Throwable t) {
      LOG.warn("closing a chunk of a stream failed", t);
    }
  }
}
