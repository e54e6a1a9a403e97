package dev.stoker.spark.source;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.sampler.Permutations;
import dev.stoker.loader.util.Closer;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * One rank's rows of one epoch, as chunks of up to a window's rows: its runs read in order by
 * Spark's vectorized Parquet reader, copied column by column into one of two shuffle windows, and
 * handed to the loader in an order shuffled per window by {@code (seed, epoch, rank, window)}.
 * While the loader copies from one window, the next is filled; {@link #next()} waits for a window
 * only when both hold rows still to copy.
 */
final class RankStream implements ChunkStream {
  private final ReadConfig config;
  private final List<ReadRun> runs;
  private final StreamRequest request;
  private final HostAllocator allocator;
  private final SourceCounters counters;
  private final Configuration conf;
  private final ShuffleWindow[] windows = new ShuffleWindow[2];
  private final boolean[] busy = new boolean[2];
  private final int windowRows;
  private long left;
  private long windowIndex;
  private int nextRun;
  private ReadRun run;
  private long runLeft;
  private long fileRow;
  private SparkParquet.Reader reader;
  private ColumnarBatch batch;
  private int batchRow;
  private int batchRows;

  RankStream(ReadConfig config, RankPartition partition, StreamRequest request,
      HostAllocator allocator, SourceCounters counters) {
    this.config = config;
    this.runs = partition.runs();
    this.request = request;
    this.allocator = allocator;
    this.counters = counters;
    this.conf = config.hadoop().get();
    this.left = partition.rows();
    this.windowRows = (int) Math.min(config.windowRows(), partition.rows());
  }

  @Override
  public ColumnChunk next() throws Exception {
    if (left == 0) {
      return null;
    }
    int w = takeWindow();
    long started = System.nanoTime();
    int rows;
    try {
      rows = fill(windows[w]);
    } catch (Throwable t) {
      release(w);
      throw t;
    }
    counters.readNanos.add(System.nanoTime() - started);
    counters.rowsRead.add(rows);
    int[] order = request.shuffle() ? Permutations.permutation(rows,
        windowSeed(request.seed(), request.rank(), windowIndex), request.epoch()) : null;
    windowIndex++;
    return new WindowChunk(windows[w], rows, order, () -> release(w));
  }

  /** The seed of window {@code window} of rank {@code rank}, mixed SplitMix64-style. */
  static long windowSeed(long seed, int rank, long window) {
    long z = seed ^ 0x9E3779B97F4A7C15L * (rank + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z += 0x94D049BB133111EBL * (window + 1);
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private synchronized int takeWindow() throws InterruptedException {
    while (true) {
      for (int w = 0; w < windows.length; w++) {
        if (!busy[w]) {
          if (windows[w] == null) {
            windows[w] = new ShuffleWindow(allocator, config.columns(), windowRows);
          }
          busy[w] = true;
          return w;
        }
      }
      wait();
    }
  }

  private synchronized void release(int w) {
    busy[w] = false;
    notifyAll();
  }

  /** Fills the window with the next rows of the range; returns how many. */
  private int fill(ShuffleWindow window) throws IOException {
    int filled = 0;
    while (filled < window.capacity() && left > 0) {
      if (runLeft == 0) {
        openNextRun();
      }
      if (batchRow == batchRows) {
        nextBatch();
      }
      int n = (int) Math.min(Math.min(window.capacity() - filled, batchRows - batchRow), runLeft);
      for (int c = 0; c < config.columns().size(); c++) {
        VectorCopy.copy(batch.column(c), config.columns().get(c), batchRow, n,
            window.address(c, filled, n), run.path(), fileRow);
      }
      filled += n;
      batchRow += n;
      runLeft -= n;
      left -= n;
      fileRow += n;
      if (runLeft == 0) {
        closeReader();
      }
    }
    return filled;
  }

  private void openNextRun() throws IOException {
    closeReader();
    run = runs.get(nextRun++);
    reader = SparkParquet.open(run.path(), run.start(), run.length(), config.schema(), conf,
        config.readerRows());
    if (reader.rowCount() != run.groupRows()) {
      throw new IllegalStateException(String.format("%s: the reader found %d rows where the "
              + "footer read when planning said %d (expected: files unchanged while they are "
              + "read; load again)", run.describe(), reader.rowCount(), run.groupRows()));
    }
    counters.bytesRead.add(run.bytes());
    batch = reader.resultBatch();
    batchRow = 0;
    batchRows = 0;
    long skip = run.skipRows();
    while (skip > 0) {
      nextBatch();
      int skipped = (int) Math.min(skip, batchRows);
      batchRow = skipped;
      skip -= skipped;
    }
    runLeft = run.rows();
    fileRow = run.firstRow() + run.skipRows();
  }

  private void nextBatch() throws IOException {
    if (!reader.nextBatch()) {
      throw new IllegalStateException(run.describe() + " ended before the rows its footer "
          + "promised (expected: files unchanged while they are read; load again)");
    }
    batchRow = 0;
    batchRows = batch.numRows();
  }

  private void closeReader() throws IOException {
    SparkParquet.Reader open = reader;
    reader = null;
    batch = null;
    batchRow = 0;
    batchRows = 0;
    if (open != null) {
      open.close();
    }
  }

  /** Closes the reader and frees both windows; the loader has closed every chunk before. */
  @Override
  public void close() {
    Closer closer = new Closer();
    closer.run(this::closeReader);
    for (ShuffleWindow window : windows) {
      if (window != null) {
        closer.run(window::close);
      }
    }
    closer.throwIfAny();
  }

  /** A filled window as the loader sees it; closing it frees the window for the next fill. */
  private record WindowChunk(ShuffleWindow window, int rows, int[] order, Runnable onClose)
      implements ColumnChunk {
    @Override
    public void copyTo(int field, int fromRow, dev.stoker.loader.ColumnTarget target) {
      window.copyTo(field, order, fromRow, target);
    }

    @Override
    public void close() {
      onClose.run();
    }
  }
}
