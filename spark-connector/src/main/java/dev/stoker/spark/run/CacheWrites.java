package dev.stoker.spark.run;

import dev.stoker.spark.parquet.ShuffleWindow;
import dev.stoker.spark.shard.ShardLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Writes a shard cache on a thread of its own while the rank's stream goes on: each window the
 * stream reads is copied into one of a few staging blocks and written from there, in order, so that
 * decoding and writing overlap. When every block is still being written, {@link #offer} waits for
 * the disk ({@code cache=disk}) or says so ({@code cache=auto}, which then gives the cache up
 * rather than hold the stream to the disk's pace). Once the rank's last row is written, {@code
 * whenComplete} runs on the writer's thread.
 *
 * <p>A cache in memory (a memory-backed folder) is written {@link #inline}: each window straight
 * from the window's own memory on the stream's thread, where a write is one copy at memory speed;
 * staging it first would copy every row twice and zero two blocks of fresh memory each epoch.
 */
final class CacheWrites implements AutoCloseable {
  /** Staging blocks: one being written, one being filled. */
  private static final int BLOCKS = 2;

  /** Where the blocks go: {@link ShardWriter#write(long, int, ByteBuffer[])}. */
  interface BlockWriter {
    void write(long firstRow, int rows, ByteBuffer[] columns) throws IOException;
  }

  /** What to do once every row is written: map the files. */
  interface Completion {
    void complete() throws IOException;
  }

  private final BlockWriter writer;
  private final long rows;
  private final Completion whenComplete;
  private final Deque<Block> free = new ArrayDeque<>();
  private final Deque<Block> queued = new ArrayDeque<>();

  /** The writer's thread, or null when rows are written inline. */
  private final Thread thread;

  private long offered;
  private Throwable failure;
  private boolean done;
  private boolean stopped;

  /** A window's rows, column after column, each column from byte 0 of its buffer. */
  private static final class Block {
    final ByteBuffer[] columns;
    long firstRow;
    int rows;

    Block(ShardLayout layout, int capacity) {
      columns = new ByteBuffer[layout.columns()];
      for (int c = 0; c < columns.length; c++) {
        columns[c] = ByteBuffer.allocateDirect(capacity * layout.rowBytes(c));
      }
    }
  }

  /**
   * @param capacity rows of the largest window
   * @param name the writer thread's name
   * @throws OutOfMemoryError if the staging blocks do not fit the direct memory
   */
  CacheWrites(
      BlockWriter writer,
      ShardLayout layout,
      long rows,
      int capacity,
      String name,
      Completion whenComplete) {
    this.writer = writer;
    this.rows = rows;
    this.whenComplete = whenComplete;
    for (int b = 0; b < BLOCKS; b++) {
      free.add(new Block(layout, capacity));
    }
    this.thread = new Thread(this::writeAll, name);
    thread.setDaemon(true);
    thread.start();
  }

  private CacheWrites(BlockWriter writer, long rows, Completion whenComplete) {
    this.writer = writer;
    this.rows = rows;
    this.whenComplete = whenComplete;
    this.thread = null;
  }

  /**
   * Writes that {@link #offer} makes on the caller's thread, from the window itself: no staging
   * block, no thread; {@code whenComplete} runs on the thread that offers the last row.
   */
  static CacheWrites inline(BlockWriter writer, long rows, Completion whenComplete) {
    return new CacheWrites(writer, rows, whenComplete);
  }

  /**
   * Copies rows {@code [0, count)} of {@code window}, the stream's next rows, for writing. Returns
   * false, copying nothing, when no staging block is free and {@code wait} is false.
   *
   * @throws IOException if an earlier write failed
   */
  boolean offer(ShuffleWindow window, int count, boolean wait)
      throws IOException, InterruptedException {
    return thread == null ? write(window, count) : stage(window, count, wait);
  }

  /**
   * Writes the window's rows now, outside the lock, so that {@link #close} never waits for it. An
   * interrupt of the stream's thread during the write closes the cache's file (the JDK closes a
   * channel whose user is interrupted): the write fails, as any failed write does.
   */
  private boolean write(ShuffleWindow window, int count) throws IOException {
    long firstRow;
    synchronized (this) {
      throwIfFailed();
      if (stopped) {
        throw new IOException("the shard cache's writes were stopped");
      }
      firstRow = offered;
      offered += count;
    }
    try {
      writer.write(firstRow, count, window.columns(count));
      if (firstRow + count == rows) {
        whenComplete.complete();
        synchronized (this) {
          done = true;
          notifyAll();
        }
      }
    } catch (Throwable t) { // an Error too: reported as the writer thread's failures are
      synchronized (this) {
        failure = t;
        notifyAll();
        throwIfFailed();
      }
    }
    return true;
  }

  private synchronized boolean stage(ShuffleWindow window, int count, boolean wait)
      throws IOException, InterruptedException {
    throwIfFailed();
    while (free.isEmpty()) {
      if (!wait) {
        return false;
      }
      wait();
      throwIfFailed();
    }
    Block block = free.poll();
    ByteBuffer[] from = window.columns(count);
    for (int c = 0; c < from.length; c++) {
      block.columns[c].clear();
      block.columns[c].put(0, from[c], 0, from[c].limit());
    }
    block.firstRow = offered;
    block.rows = count;
    offered += count;
    queued.add(block);
    notifyAll();
    return true;
  }

  /** Whether every row of the rank was offered. */
  synchronized boolean allOffered() {
    return offered == rows;
  }

  /** Waits until every offered row is written and the files handed on. */
  synchronized void awaitDone() throws IOException, InterruptedException {
    while (!done) {
      throwIfFailed();
      if (stopped) {
        throw new IOException("the shard cache's writer stopped before it was done");
      }
      wait();
    }
  }

  /** Whether the files have been handed on: every row written. */
  synchronized boolean done() {
    return done;
  }

  /** Stops writing (what is queued is dropped) and waits for the thread to end. */
  @Override
  public void close() {
    synchronized (this) {
      stopped = true;
      notifyAll();
    }
    if (thread == null) {
      return;
    }
    thread.interrupt();
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void throwIfFailed() throws IOException {
    if (failure instanceof IOException io) {
      throw new IOException("writing the shard cache failed: " + io.getMessage(), io);
    }
    if (failure != null) {
      throw new IOException("writing the shard cache failed: " + failure, failure);
    }
  }

  private void writeAll() {
    try {
      long written = 0;
      while (written < rows) {
        Block block;
        synchronized (this) {
          while (queued.isEmpty() && !stopped) {
            wait();
          }
          if (stopped) {
            return;
          }
          block = queued.peek();
        }
        writer.write(block.firstRow, block.rows, block.columns);
        written += block.rows;
        synchronized (this) {
          queued.poll();
          free.add(block);
          notifyAll();
        }
      }
      whenComplete.complete();
      synchronized (this) {
        done = true;
        notifyAll();
      }
    } catch (InterruptedException e) {
      // stopped
    } catch (Throwable t) { // an Error too: the stream's thread reports it
      synchronized (this) {
        failure = t;
        notifyAll();
      }
    }
  }
}
