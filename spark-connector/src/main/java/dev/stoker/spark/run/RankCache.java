package dev.stoker.spark.run;

import dev.stoker.spark.CacheMode;
import dev.stoker.spark.parquet.ShuffleWindow;
import dev.stoker.spark.parquet.WindowSink;
import dev.stoker.spark.run.shard.MappedShard;
import dev.stoker.spark.run.shard.ShardBudgetException;
import dev.stoker.spark.run.shard.ShardFiles;
import dev.stoker.spark.run.shard.ShardLayout;
import dev.stoker.spark.run.shard.ShardWriter;
import dev.stoker.loader.util.Closer;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming rank's shard cache: written from the windows of the epoch that {@link CacheMode}
 * picks (the first with {@code disk}, the second with {@code auto}), mapped once that epoch has
 * streamed every row of the rank, and read by every later epoch. With {@code auto}, a cache that
 * does not fit (the budget, the disk) or fails to write is given up with a warning and the epochs
 * keep streaming from Parquet; with {@code disk}, that fails the rank. An epoch that ends early
 * leaves no cache behind; the next epoch writes it again. Used by the loader's one stream at a
 * time.
 */
final class RankCache implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RankCache.class);

  /** Makes the folder of a new shard. */
  interface Folders {
    ShardFiles create() throws IOException;
  }

  private final CacheMode mode;
  private final long rows;
  private final ShardLayout layout;
  private final long budget;
  private final String owner;
  private final Folders folders;
  private ShardFiles files;
  private ShardWriter writer;
  private MappedShard mapped;
  private int epochsOpened;
  private boolean givenUp;
  private long writeNanos;
  private boolean closed;

  RankCache(CacheMode mode, long rows, ShardLayout layout, long budget, String owner,
      Folders folders) {
    this.mode = mode;
    this.rows = rows;
    this.layout = layout;
    this.budget = budget;
    this.owner = owner;
    this.folders = folders;
  }

  /** The mapped cache, once an epoch has written it; else null. */
  synchronized MappedShard mapped() {
    return mapped;
  }

  /**
   * Counts an epoch being opened from Parquet and returns the sink that writes it to the cache,
   * or null when this epoch writes nothing.
   *
   * @throws IOException with {@code disk}, if the cache cannot be started
   */
  synchronized WindowSink openEpoch() throws IOException {
    epochsOpened++;
    if (closed || mapped != null || givenUp || mode == CacheMode.NONE
        || mode == CacheMode.AUTO && epochsOpened < 2) {
      return null;
    }
    try {
      files = folders.create();
      writer = new ShardWriter(files, layout, budget, owner);
      writer.reserve(rows);
    } catch (IOException | RuntimeException e) {
      discard();
      if (mode == CacheMode.DISK) {
        throw e;
      }
      giveUp("it cannot be written", e);
      return null;
    }
    return new Sink();
  }

  /** Counts an epoch read from the cache. */
  synchronized void openCachedEpoch() {
    epochsOpened++;
  }

  /** The folder of the cache while there is one, else null. */
  synchronized String folder() {
    return files == null ? null : files.folder().toString();
  }

  /** Bytes of the mapped cache, 0 without one. */
  synchronized long bytes() {
    return mapped == null ? 0 : mapped.bytes();
  }

  /** Seconds spent writing the cache. */
  synchronized double writeSeconds() {
    return writeNanos / 1e9;
  }

  /**
   * Deletes the cache's files, and nothing more: for when the task ends, however it ends. A
   * mapping stays readable until {@link #close()}.
   */
  synchronized void deleteFiles() {
    closed = true;
    Closer closer = new Closer();
    if (writer != null) {
      closer.run(writer::close);
      writer = null;
    }
    if (files != null) {
      closer.run(files::delete);
    }
    closer.throwIfAny();
  }

  /** Unmaps and deletes the cache; only once no loader thread reads it. */
  @Override
  public synchronized void close() {
    closed = true;
    Closer closer = new Closer();
    if (mapped != null) {
      closer.run(mapped::release);
    }
    closer.run(this::discard);
    closer.throwIfAny();
  }

  private void giveUp(String why, Throwable cause) {
    givenUp = true;
    LOG.warn("stoker: {}: no shard cache, every epoch streams from the Parquet files: {}", owner,
        why, cause);
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

  /** Writes one epoch's windows in reading order, and maps them once all rows came. */
  private final class Sink implements WindowSink {
    private long written;

    @Override
    public void filled(ShuffleWindow window, int count) throws IOException {
      synchronized (RankCache.this) {
        if (writer == null) {
          return; // given up
        }
        long start = System.nanoTime();
        try {
          writer.write(written, count, window.columns(count));
          written += count;
        } catch (IOException | ShardBudgetException e) {
          discard();
          if (mode == CacheMode.DISK) {
            throw e;
          }
          giveUp("writing it failed", e);
        } finally {
          writeNanos += System.nanoTime() - start;
        }
      }
    }

    @Override
    public void closed(boolean complete) {
      synchronized (RankCache.this) {
        if (writer == null) {
          return;
        }
        if (!complete || written != rows || closed) {
          discard(); // an epoch that stopped early: the next one writes the cache again
          return;
        }
        try {
          mapped = writer.map(rows);
          writer = null;
        } catch (IOException | RuntimeException e) {
          discard();
          if (mode == CacheMode.DISK) {
            throw e instanceof IOException io ? new UncheckedIOException(io)
                : (RuntimeException) e;
          }
          giveUp("mapping it failed", e);
        }
      }
    }
  }
}
