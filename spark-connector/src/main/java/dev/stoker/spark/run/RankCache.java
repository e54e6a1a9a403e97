package dev.stoker.spark.run;

import dev.stoker.loader.util.Closer;
import dev.stoker.spark.CacheMode;
import dev.stoker.spark.SparkOptionNames;
import dev.stoker.spark.parquet.ShuffleWindow;
import dev.stoker.spark.parquet.WindowSink;
import dev.stoker.spark.shard.MappedShard;
import dev.stoker.spark.shard.ShardFiles;
import dev.stoker.spark.shard.ShardLayout;
import dev.stoker.spark.shard.ShardWriter;
import dev.stoker.spark.shard.Sizes;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming rank's shard cache: written, on a thread of its own ({@link CacheWrites}; in memory,
 * on the stream's thread from the windows themselves), from the windows of the epoch that {@link
 * CacheMode} picks (the first with {@code disk}, or with {@code auto} told of more epochs; the
 * second with {@code auto} not told), mapped once every row of the rank is written, and read by
 * every epoch that starts after that. With {@code auto}, a cache that does not fit (the budget, the
 * disk), fails to write, or whose writer falls two windows behind the stream is given up with a
 * warning, and the epochs keep streaming from Parquet: the cache is kept only where it costs the
 * stream nothing. With {@code disk}, the stream waits for the disk, and a failure fails the rank.
 * An epoch that ends early leaves no cache behind; the next epoch writes it again. Used by the
 * loader's one stream at a time.
 */
final class RankCache implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RankCache.class);

  /** Makes the folder of a new shard: in a memory-backed folder, or on the local disk. */
  interface Folders {
    ShardFiles create(boolean inMemory) throws IOException;
  }

  private final CacheMode mode;
  private final int epochs;
  private final long rows;
  private final int windowRows;
  private final ShardLayout layout;
  private final long budget;
  private final long memoryBudget;
  private final String owner;
  private final Folders folders;
  private ShardFiles files;
  private String folder;
  private ShardWriter writer;
  private CacheWrites writes;
  private MappedShard mapped;
  private int epochsOpened;
  private boolean givenUp;
  private boolean inMemory;

  /** Memory could not be had once: the cache goes to the disk from then on. */
  private boolean memoryRefused;

  private long startedAt;
  private long writeNanos;
  private boolean closed;

  /**
   * @param epochs the epochs the rank function runs, 0 when not known
   * @param windowRows rows of the stream's largest window
   * @param budget the most bytes of the cache ({@code maxShardBytes})
   * @param memoryBudget the most bytes of it that may be kept in memory, 0 for none
   */
  RankCache(
      CacheMode mode,
      int epochs,
      long rows,
      int windowRows,
      ShardLayout layout,
      long budget,
      long memoryBudget,
      String owner,
      Folders folders) {
    this.mode = mode;
    this.epochs = epochs;
    this.rows = rows;
    this.windowRows = windowRows;
    this.layout = layout;
    this.budget = budget;
    this.memoryBudget = memoryBudget;
    this.owner = owner;
    this.folders = folders;
  }

  /** The mapped cache, once every row of it is written; else null. */
  synchronized MappedShard mapped() {
    return mapped;
  }

  /**
   * Counts an epoch being opened from Parquet and returns the sink that writes it to the cache, or
   * null when this epoch writes nothing.
   *
   * @throws IOException with {@code disk}, if the cache cannot be started
   */
  synchronized WindowSink openEpoch() throws IOException {
    epochsOpened++;
    if (closed || mapped != null || writes != null || givenUp || mode == CacheMode.NONE) {
      return null;
    }
    long bytes = rows * layout.rowBytes();
    boolean fits = memoryBudget > 0 && !memoryRefused && bytes <= memoryBudget;
    if (mode == CacheMode.MEMORY && !fits && rows > 0) {
      throw new IOException(
          String.format(
              "shard cache of %s: %s of rows to keep in memory, but %s (expected: at most "
                  + "that; raise %s, use more ranks or fewer columns, or cache=auto, which keeps "
                  + "on the local disk what memory does not take)",
              owner,
              Sizes.text(bytes),
              memoryBudget > 0
                  ? SparkOptionNames.CACHE_MEMORY
                      + " and the memory-backed folder allow "
                      + Sizes.text(memoryBudget)
                  : "no memory-backed folder (/dev/shm) takes it here, or "
                      + SparkOptionNames.CACHE_MEMORY
                      + "=0",
              SparkOptionNames.CACHE_MEMORY));
    }
    inMemory = mode == CacheMode.MEMORY || mode == CacheMode.AUTO && fits;
    // auto: a run told of one epoch writes none; not told, memory is written in the first epoch
    // (a copy at memory speed), the disk in the second (when a second is known to come)
    if (mode == CacheMode.AUTO && (epochs == 1 || epochs == 0 && epochsOpened < 2 && !inMemory)
        || rows == 0) {
      return null;
    }
    if (rows > Integer.MAX_VALUE) { // a cache epoch's order is a permutation of ints
      if (mode == CacheMode.DISK || mode == CacheMode.MEMORY) {
        throw new IOException(
            String.format(
                "shard cache of %s: %d rows (expected: at most %d "
                    + "rows per rank for cache=disk; use more ranks, or cache=auto or none, which "
                    + "stream every epoch)",
                owner, rows, Integer.MAX_VALUE));
      }
      giveUp("its " + rows + " rows are more than a cache epoch can order", null);
      return null;
    }
    try {
      start(bytes);
    } catch (IOException | RuntimeException | OutOfMemoryError e) {
      discard();
      if (mode == CacheMode.DISK || mode == CacheMode.MEMORY) {
        throw e instanceof IOException io
            ? io
            : new IOException("starting the shard cache of " + owner + " failed: " + e, e);
      }
      if (!inMemory) {
        giveUp("it cannot be written", e);
        return null;
      }
      // memory that cannot be had (a full /dev/shm, a folder of another user): the disk, as if
      // memory had not fitted, from this epoch or the next
      LOG.info("stoker: {}: no shard cache in memory ({}); the local disk instead", owner, e);
      memoryRefused = true;
      inMemory = false;
      if (epochs == 0 && epochsOpened < 2) {
        return null;
      }
      try {
        start(bytes);
      } catch (IOException | RuntimeException | OutOfMemoryError again) {
        discard();
        giveUp("it cannot be written", again);
        return null;
      }
    }
    return new Sink(writes);
  }

  /** Makes the cache's folder and writer, in memory or on the disk as {@code inMemory} says. */
  private void start(long bytes) throws IOException {
    files = folders.create(inMemory);
    folder = files.folder().toString();
    LOG.info(
        "stoker: {}: writing its shard cache of {} {} ({} allows {} in memory)",
        owner,
        Sizes.text(bytes),
        inMemory ? "in memory, " + folder : "on the local disk, " + folder,
        SparkOptionNames.CACHE_MEMORY,
        Sizes.text(memoryBudget));
    writer = new ShardWriter(files, layout, budget, owner);
    writer.reserve(rows);
    startedAt = System.nanoTime();
    ShardWriter out = writer;
    writes =
        inMemory
            ? CacheWrites.inline(out::write, rows, () -> written(out))
            : new CacheWrites(
                out::write,
                layout,
                rows,
                windowRows,
                "stoker-" + owner.replace(' ', '-') + "-cache",
                () -> written(out));
  }

  /**
   * Whether the stream waits for a slow writer: with {@code disk} or in memory (which keeps pace),
   * and with {@code auto} told that more epochs follow; else a writer two windows behind gives the
   * cache up.
   */
  private boolean waitsForDisk() {
    return mode == CacheMode.DISK || inMemory || epochs > 1;
  }

  /** Whether the cache is (being) written in memory. */
  synchronized boolean inMemory() {
    return inMemory && (writes != null || mapped != null);
  }

  /** Maps the written files: on the writer's thread, once every row is written. */
  private void written(ShardWriter done) throws IOException {
    MappedShard shard = done.map(rows);
    synchronized (this) {
      writeNanos = System.nanoTime() - startedAt;
      writer = null;
      if (closed) {
        shard.release();
      } else {
        mapped = shard;
      }
    }
  }

  /** Counts an epoch read from the cache. */
  synchronized void openCachedEpoch() {
    epochsOpened++;
  }

  /** The folder of the cache last written, or null if none was. */
  synchronized String folder() {
    return folder;
  }

  /** Bytes of the mapped cache, 0 without one. */
  synchronized long bytes() {
    return mapped == null ? 0 : mapped.bytes();
  }

  /** Seconds from the start of the cache's writing to its last row written. */
  synchronized double writeSeconds() {
    return writeNanos / 1e9;
  }

  /**
   * Deletes the cache's files, and nothing more: for when the task ends, however it ends. A mapping
   * stays readable until {@link #close()}.
   */
  void deleteFiles() {
    end(false);
  }

  /** Unmaps and deletes the cache; only once no loader thread reads it. */
  @Override
  public void close() {
    end(true);
  }

  /**
   * Stops the writes in progress (outside the lock their completion takes), then deletes the files
   * and, if {@code unmap}, releases the mapping.
   */
  private void end(boolean unmap) {
    CacheWrites stopping;
    synchronized (this) {
      closed = true;
      stopping = writes;
    }
    Closer closer = new Closer();
    if (stopping != null) {
      closer.run(stopping::close);
    }
    synchronized (this) {
      if (unmap && mapped != null) {
        closer.run(mapped::release);
      }
      if (writer != null) {
        closer.run(writer::close);
        writer = null;
      }
      if (files != null) {
        closer.run(files::delete);
        files = null;
      }
    }
    closer.throwIfAny();
  }

  private void giveUp(String why, Throwable cause) {
    givenUp = true;
    if (cause == null) {
      LOG.info(
          "stoker: {}: no shard cache, every epoch streams from the Parquet files: {}", owner, why);
    } else {
      LOG.warn(
          "stoker: {}: no shard cache, every epoch streams from the Parquet files: {}",
          owner,
          why,
          cause);
    }
  }

  /** Stops the writes in progress, outside the lock their completion takes, and discards them. */
  private void abandon(CacheWrites stopping) {
    stopping.close();
    synchronized (this) {
      if (writes == stopping) {
        writes = null;
        if (mapped == null) {
          discard();
        }
      }
    }
  }

  /** Closes the writer and deletes the files of a cache not mapped. */
  private void discard() {
    Closer closer = new Closer();
    if (writer != null) {
      closer.run(writer::close);
      writer = null;
    }
    if (files != null && mapped == null) {
      closer.run(files::delete);
      files = null;
    }
    closer.throwIfAny();
  }

  /** Hands one epoch's windows, in reading order, to the cache's writer. */
  private final class Sink implements WindowSink {
    private final CacheWrites writes;

    Sink(CacheWrites writes) {
      this.writes = writes;
    }

    @Override
    public void filled(ShuffleWindow window, int count) throws IOException {
      synchronized (RankCache.this) {
        if (RankCache.this.writes != writes) {
          return; // given up
        }
      }
      boolean taken;
      try {
        taken = writes.offer(window, count, waitsForDisk());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for the shard cache's disk");
      } catch (IOException e) {
        if (mode == CacheMode.DISK || mode == CacheMode.MEMORY) {
          throw e;
        }
        abandon(writes);
        synchronized (RankCache.this) {
          giveUp("writing it failed", e);
        }
      }
    }

    @Override
    public void closed(boolean complete) {
      boolean current;
      synchronized (RankCache.this) {
        current = RankCache.this.writes == writes;
      }
      if (!current) {
        return; // given up
      }
      if (!complete || !writes.allOffered()) {
        abandon(writes); // an epoch that stopped early: the next one writes the cache again
        return;
      }
      try {
        writes.awaitDone();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abandon(writes);
        throw new IllegalStateException("interrupted while the shard cache was written", e);
      } catch (IOException e) {
        abandon(writes);
        if (mode == CacheMode.DISK || mode == CacheMode.MEMORY) {
          throw new UncheckedIOException(e);
        }
        synchronized (RankCache.this) {
          giveUp("writing it failed", e);
        }
      }
    }
  }
}
