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
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 *
 * <p>Where the plan deals a few row groups' rows in turn ({@link GroupStripes}), a run that goes on
 * where an earlier one of the same row group stopped is read by that run's reader, kept open for
 * it: each place of a row group (each depth) is read once, front to back, however its rows are
 * dealt.
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

  /** The reader's row group, as "path#ordinal" (null: its run ends the reader). */
  private Group readerKey;

  /** The row of its row group the reader reads next once its run is read, and where it ends. */
  private long readerNext;

  private long readerEnd;

  /** Per run of the part: what to open for it (it and the runs that go on from it). */
  private ReadRun[] opening;

  /** Per run of the part: whether an earlier run's reader reads it. */
  private boolean[] continues;

  /** Readers kept open for runs that go on from where they stopped, by {@link #heldKey}. */
  private final Map<GroupRow, HeldReader> held = new LinkedHashMap<>();

  private final WindowSink sink;
  private final RunOpener opener;
  private final boolean remote;

  /** Page arrays the stream's readers hand on: a place's each, window and page buffer a column. */
  private final PageArrays pageArrays;

  private final Map<String, FileFooter> footers;

  /** Footers of local files this stream read itself, by path ({@link #footerOf}). */
  private final Map<String, FileFooter> ownFooters = new ConcurrentHashMap<>();

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
    this.parts = partition.streamParts(config.windowRows());
    this.runs = parts.get(0).runs();
    chain(runs);
    this.request = request;
    this.allocator = allocator;
    this.counters = counters;
    // A copy: Spark's reader verifies page checksums as Parquet's setting says, and the read's
    // option decides it here.
    this.conf = new Configuration(config.hadoop().get());
    conf.setBoolean(ParquetInputFormat.PAGE_VERIFY_CHECKSUM_ENABLED, config.verifyChecksums());
    this.left = partition.streamRows();
    this.footers = partition.footers();
    this.remote = remote();
    this.pageArrays = new PageArrays(2 * config.columns().size() * GroupStripes.MAX_PLACES);
    this.opener = new RunOpener(this::open, remote ? StorageReads.threads(conf) : null);
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
    readerKey = null;
    part++;
    windowInPart = 0;
    nextRun = 0;
    runLeft = 0;
    closeHeld();
    if (part < parts.size()) {
      runs = parts.get(part).runs();
      chain(runs);
    }
  }

  /** A reader kept open, the row of its row group it reads next and where its run ends. */
  private record HeldReader(RunReader reader, long next, long end) {}

  /**
   * Most readers kept open at once: a stripe's places, and those of the stripe before at a rank's
   * start. One more closes the oldest (its rows are read again from a new reader).
   */
  private static final int MAX_HELD = 2 * GroupStripes.MAX_PLACES + 2;

  /** A row group of a file. */
  private record Group(String path, int rowGroup) {}

  /** A row of a row group: where a reader of it goes on. */
  private record GroupRow(Group group, long row) {}

  /** The row group a one-group run reads; null for runs of several. */
  private static Group keyOf(ReadRun run) {
    return run.rowGroups() == 1 ? new Group(run.path(), run.firstRowGroup()) : null;
  }

  /**
   * A reader of row group {@code key} that reads row {@code next} of it next: a row group read at
   * several depths has a reader at each.
   */
  private static GroupRow heldKey(Group key, long next) {
    return new GroupRow(key, next);
  }

  /**
   * Finds, for each run of {@code list}, the later runs of its row group that go on where it stops:
   * the first of a chain is opened for all their rows, the others read by its reader.
   */
  private void chain(List<ReadRun> list) {
    int n = list.size();
    opening = new ReadRun[n];
    continues = new boolean[n];
    // (row group, first row) -> {chain end, index} of the earliest later run starting there
    Map<GroupRow, long[]> later = new HashMap<>();
    for (int i = n - 1; i >= 0; i--) {
      ReadRun run = list.get(i);
      Group key = keyOf(run);
      long end = run.skipRows() + run.rows();
      if (key != null) {
        long[] next = later.remove(heldKey(key, end));
        if (next != null) {
          end = next[0];
          continues[(int) next[1]] = true;
        }
        later.put(heldKey(key, run.skipRows()), new long[] {end, i});
      }
      opening[i] = end > run.skipRows() + run.rows() ? run.withRows(end - run.skipRows()) : run;
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
        keepOrCloseReader();
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

  /**
   * The footer of {@code run}'s file: the one planning sent, else, for a local file, the one this
   * stream read at its first reader of the file (a dealt read opens a reader for each place of each
   * row group, and each would read and parse the footer again); null for a remote file without one.
   */
  private FileFooter footerOf(ReadRun run) throws IOException {
    FileFooter sent = footers.get(run.path());
    if (sent != null || remote) {
      return sent;
    }
    FileFooter own = ownFooters.get(run.path());
    if (own == null) {
      own = FileFooter.read(new Path(run.path()), conf);
      ownFooters.put(run.path(), own);
    }
    return own;
  }

  private RunReader open(ReadRun run) throws IOException {
    return run.decodable() && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
        ? new ParquetRunReader(
            run, config, conf, footerOf(run), counters.storageWaitNanos, pageArrays)
        : new SparkRunReader(run, config, conf);
  }

  /**
   * Opens the next run: with Stoker's decoder where every column's encodings allow (on a
   * little-endian machine, whose native order batches use), else with Spark's reader.
   */
  private void openNextRun() throws IOException {
    keepOrCloseReader();
    int i = nextRun++;
    ReadRun run = runs.get(i);
    Group key = keyOf(run);
    HeldReader kept = key == null ? null : held.remove(heldKey(key, run.skipRows()));
    if (kept != null) {
      reader = kept.reader();
      readerEnd = kept.end();
    } else {
      // a run whose reader was closed to keep few open is read on from here to its chain's end
      ReadRun whole = continues[i] ? chainFrom(i) : opening[i];
      reader = opener.open(whole);
      readerEnd = whole.skipRows() + whole.rows();
      counters.bytesRead.add(bytesOf(whole));
      // Stoker's reader only: Spark's may look for its task on the thread that opens it
      int ahead = nextOpened(nextRun);
      if (ahead >= 0 && runs.get(ahead).decodable()) {
        opener.openAhead(opening[ahead]);
      }
    }
    readerKey = key;
    readerNext = run.skipRows() + run.rows();
    runLeft = run.rows();
  }

  /**
   * The bytes a reader of {@code run} reads: of a local row group, the share its rows take
   * (Stoker's reader passes over the pages before them by their headers); else every byte of its
   * row groups.
   */
  private long bytesOf(ReadRun run) {
    if (remote || run.rowGroups() != 1 || !run.decodable() || run.rows() >= run.groupRows()) {
      return run.bytes();
    }
    return Math.round((double) run.bytes() * run.rows() / run.groupRows());
  }

  /** Run {@code i} with every row its chain reads after it. */
  private ReadRun chainFrom(int i) {
    ReadRun run = runs.get(i);
    for (int j = i - 1; j >= 0; j--) {
      ReadRun first = opening[j];
      if (!continues[j]
          && run.path().equals(first.path())
          && keyOf(first) != null
          && first.firstRowGroup() == run.firstRowGroup()
          && first.skipRows() <= run.skipRows()
          && run.skipRows() < first.skipRows() + first.rows()) {
        return run.withRows(first.skipRows() + first.rows() - run.skipRows());
      }
    }
    return run;
  }

  /** The first run from {@code from} on that a reader of its own opens, or -1. */
  private int nextOpened(int from) {
    for (int j = from; j < runs.size(); j++) {
      if (!continues[j]) {
        return j;
      }
    }
    return -1;
  }

  /** Keeps the reader open if its row group's rows go on in a later run, else closes it. */
  private void keepOrCloseReader() throws IOException {
    RunReader open = reader;
    reader = null;
    if (open == null) {
      return;
    }
    if (readerKey == null || readerNext >= readerEnd) {
      open.close();
      return;
    }
    HeldReader before =
        held.put(heldKey(readerKey, readerNext), new HeldReader(open, readerNext, readerEnd));
    if (before != null) {
      before.reader().close();
    }
    if (held.size() > MAX_HELD) {
      Iterator<Map.Entry<GroupRow, HeldReader>> oldest = held.entrySet().iterator();
      HeldReader evicted = oldest.next().getValue();
      oldest.remove();
      evicted.reader().close();
    }
  }

  private void closeReader() throws IOException {
    RunReader open = reader;
    reader = null;
    if (open != null) {
      open.close();
    }
  }

  /** Closes every reader kept open, all closed even if one fails. */
  private void closeHeld() {
    Closer closer = new Closer();
    for (HeldReader kept : held.values()) {
      closer.run(kept.reader()::close);
    }
    held.clear();
    closer.throwIfAny();
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
    closer.run(this::closeHeld);
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
