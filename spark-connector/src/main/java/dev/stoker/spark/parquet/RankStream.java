package dev.stoker.spark.parquet;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.util.Closer;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetInputFormat;

/**
 * One rank's rows of one epoch, as chunks of up to a window's rows: its runs read in order (by
 * {@link ParquetRunReader}, or {@link SparkRunReader} for encodings it does not decode; from remote
 * storage the next opened ahead by a {@link RunOpener}) column by column into one of two shuffle
 * windows, and handed to the loader in an order shuffled per window by {@code (seed, epoch, rank,
 * window)}. A resumed rank reads its {@link StreamPart}s in turn, each windowed and shuffled as its
 * slice says, and hands over only the slice's rows. While the loader copies from one window, the
 * next is filled; {@link #next()} waits for a window only when both hold rows still to copy.
 */
public final class RankStream implements ChunkStream {
  private final ReadConfig config;
  private final List<StreamPart> parts;

  /** The runs of the part being read. */
  private List<ReadRun> runs;

  private int part;
  private long windowInPart;
  private final StreamRequest request;
  private final HostAllocator allocator;
  private final SourceCounters counters;
  private final Configuration conf;
  private final ShuffleWindow[] windows = new ShuffleWindow[2];
  private final boolean[] busy = new boolean[2];
  private final int windowRows;
  private long left;
  private int nextRun;
  private long runLeft;
  private RunReader reader;
  private final WindowSink sink;
  private final RunOpener opener;
  private final Map<String, FileFooter> footers;

  RankStream(
      ReadConfig config,
      RankRuns partition,
      StreamRequest request,
      HostAllocator allocator,
      SourceCounters counters) {
    this(config, partition, request, allocator, counters, null);
  }

  /**
   * The stream of rank {@code partition.rank()}'s rows, each window also handed to {@code sink}
   * (may be null) before it is shuffled.
   */
  public RankStream(
      ReadConfig config,
      RankRuns partition,
      StreamRequest request,
      HostAllocator allocator,
      SourceCounters counters,
      WindowSink sink) {
    this.sink = partition.resumed() ? null : sink;
    this.config = config;
    this.windowRows = partition.windowRows(config.windowRows());
    this.parts =
        partition.resumed()
            ? partition.parts()
            : List.of(
                new StreamPart(
                    new OrderSlice(
                        0, partition.rows(), windowRows, request.rank(), 0, 0, partition.rows()),
                    partition.runs()));
    this.runs = parts.get(0).runs();
    this.request = request;
    this.allocator = allocator;
    this.counters = counters;
    // A copy: Spark's reader verifies page checksums as Parquet's setting says, and the read's
    // option decides it here.
    this.conf = new Configuration(config.hadoop().get());
    conf.setBoolean(ParquetInputFormat.PAGE_VERIFY_CHECKSUM_ENABLED, config.verifyChecksums());
    this.left = partition.streamRows();
    this.footers = partition.footers();
    this.opener = new RunOpener(this::open, remote() ? StorageReads.threads(conf) : null);
  }

  /**
   * Whether any file the rank reads is on storage where opening a file costs round trips: each file
   * system the runs name is asked once.
   */
  private boolean remote() {
    Set<URI> seen = new HashSet<>();
    for (StreamPart p : parts) {
      for (ReadRun run : p.runs()) {
        URI file = new Path(run.path()).toUri();
        URI fileSystem = URI.create(file.getScheme() + "://" + file.getAuthority() + "/");
        if (file.getScheme() == null || !seen.add(fileSystem)) {
          continue;
        }
        try {
          if (!(new Path(run.path()).getFileSystem(conf) instanceof LocalFileSystem)) {
            return true;
          }
        } catch (IOException e) {
          // its open names the failure
        }
      }
    }
    return false;
  }

  @Override
  public ColumnChunk next() throws Exception {
    while (left > 0) {
      OrderSlice slice = parts.get(part).slice();
      long i = windowInPart;
      int rows = slice.windowRows(i);
      int w = takeWindow();
      long started = System.nanoTime();
      try {
        fill(windows[w], rows);
        if (sink != null) {
          sink.filled(windows[w], rows);
        }
      } catch (Throwable t) {
        release(w);
        throw t;
      }
      counters.readNanos.add(System.nanoTime() - started);
      counters.rowsRead.add(rows);
      int[] order = slice.order(i, request.shuffle(), request.seed(), request.epoch());
      long firstRow = i * slice.window();
      int lo = (int) Math.max(0, slice.skip() - firstRow);
      int hi = (int) Math.min(rows, slice.skip() + slice.take() - firstRow);
      windowInPart++;
      if (firstRow + rows >= slice.skip() + slice.take()) {
        nextPart();
      }
      if (hi <= lo) {
        release(w);
        continue;
      }
      left -= hi - lo;
      return new WindowChunk(windows[w], hi - lo, cut(order, lo, hi, rows), () -> release(w));
    }
    return null;
  }

  /** Rows {@code [lo, hi)} of a window's order (null: as read). */
  private static int[] cut(int[] order, int lo, int hi, int rows) {
    if (lo == 0 && hi == rows) {
      return order;
    }
    int[] out = new int[hi - lo];
    for (int r = lo; r < hi; r++) {
      out[r - lo] = order == null ? r : order[r];
    }
    return out;
  }

  /** Moves on to the next part: its runs are read from their first. */
  private void nextPart() throws IOException {
    closeReader();
    part++;
    windowInPart = 0;
    nextRun = 0;
    runLeft = 0;
    if (part < parts.size()) {
      runs = parts.get(part).runs();
    }
  }

  private synchronized int takeWindow() throws InterruptedException {
    while (true) {
      for (int w = 0; w < windows.length; w++) {
        if (!busy[w]) {
          if (windows[w] == null) {
            windows[w] =
                new ShuffleWindow(
                    allocator, config.columns(), windowRows, config.transforms() != null);
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

  /** Fills the window with the next {@code rows} rows of the part's runs. */
  private void fill(ShuffleWindow window, int rows) throws IOException {
    int filled = 0;
    while (filled < rows) {
      if (runLeft == 0) {
        openNextRun();
      }
      int n;
      try {
        n = reader.read(window, filled, (int) Math.min(rows - filled, runLeft));
      } catch (IOException e) {
        throw confirmed(window, e);
      }
      if (window.keyed()) {
        ReadRun run = runs.get(nextRun - 1);
        window.setKeys(filled, n, run.inputRow() < 0 ? -1 : run.inputRow() + run.rows() - runLeft);
      }
      filled += n;
      runLeft -= n;
      if (runLeft == 0) {
        closeReader();
      }
    }
  }

  /**
   * {@code failure}, met in the current run, as an {@link UnreadableInputException} if reading the
   * run again from its start fails alike before as many rows (the file's fault, which a retry would
   * meet again); else as it is. Reads into {@code window}, whose rows are lost anyway.
   */
  private IOException confirmed(ShuffleWindow window, IOException failure) {
    ReadRun run = runs.get(nextRun - 1);
    long done = run.rows() - runLeft;
    long again = 0;
    try (RunReader second = open(run)) {
      while (again <= done) {
        int n = second.read(window, 0, (int) Math.min(window.capacity(), run.rows() - again));
        if (n <= 0) {
          break;
        }
        again += n;
      }
    } catch (IOException e) {
      if (String.valueOf(e.getMessage()).equals(failure.getMessage())) {
        return new UnreadableInputException(failure.getMessage(), failure);
      }
      failure.addSuppressed(e);
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
    return failure;
  }

  private RunReader open(ReadRun run) throws IOException {
    return run.decodable() && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
        ? new ParquetRunReader(
            run, config, conf, footers.get(run.path()), counters.storageWaitNanos)
        : new SparkRunReader(run, config, conf);
  }

  /**
   * Opens the next run: with Stoker's decoder where every column's encodings allow (on a
   * little-endian machine, whose native order batches use), else with Spark's reader.
   */
  private void openNextRun() throws IOException {
    closeReader();
    ReadRun run = runs.get(nextRun++);
    reader = opener.open(run);
    counters.bytesRead.add(run.bytes());
    runLeft = run.rows();
    // Stoker's reader only: Spark's may look for its task on the thread that opens it
    if (nextRun < runs.size() && runs.get(nextRun).decodable()) {
      opener.openAhead(runs.get(nextRun));
    }
  }

  private void closeReader() throws IOException {
    RunReader open = reader;
    reader = null;
    if (open != null) {
      open.close();
    }
  }

  /** Closes the reader and frees both windows; the loader has closed every chunk before. */
  @Override
  public void close() {
    Closer closer = new Closer();
    if (sink != null) {
      closer.run(() -> sink.closed(left == 0));
    }
    closer.run(opener::close);
    closer.run(this::closeReader);
    for (ShuffleWindow window : windows) {
      if (window != null) {
        closer.run(window::close);
      }
    }
    closer.throwIfAny();
  }

  /** A filled window as the loader sees it; closing it frees the window for the next fill. */
  public record WindowChunk(ShuffleWindow window, int rows, int[] order, Runnable onClose)
      implements ColumnChunk {
    /** The window's bytes, native order, for absolute reads at {@link #offset}. */
    public ByteBuffer bytes() {
      return window.buffer().duplicate().order(ByteOrder.nativeOrder());
    }

    /**
     * Where row {@code row} of the chunk (in its shuffled order) starts, of column {@code column}.
     */
    public int offset(int column, int row) {
      Objects.checkIndex(row, rows);
      return window.offset(column, order == null ? row : order[row], 1);
    }

    @Override
    public void copyTo(int field, int fromRow, ColumnTarget target) {
      window.copyTo(field, order, fromRow, target);
    }

    @Override
    public ByteBuffer variableValue(int field, int row) {
      Objects.checkIndex(row, rows);
      return window.variableValue(field, order == null ? row : order[row]);
    }

    /** The row's ordinal in the read's input (file by file, row group by row group), or -1. */
    @Override
    public long rowKey(int row) {
      Objects.checkIndex(row, rows);
      return window.key(order == null ? row : order[row]);
    }

    @Override
    public void close() {
      onClose.run();
    }
  }
}
