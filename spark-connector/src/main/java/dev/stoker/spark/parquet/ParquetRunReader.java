package dev.stoker.spark.parquet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Reads a run with Stoker's page reader ({@link FilePages}) and a {@link ChunkDecoder} per column:
 * pages are read and decompressed into reused buffers, then decoded straight into the window. Rows
 * before the run's first, and rows a table's snapshot deleted, are passed over with their levels
 * checked but their values not copied.
 */
public final class ParquetRunReader implements RunReader {

  private final ReadRun run;
  private final ReadConfig config;
  private final ParquetFileReader reader;
  private final MessageType requested;
  private final List<ColumnDescriptor> descriptors = new ArrayList<>();
  private final FilePages pages;
  private final ChunkDecoder[] decoders;

  /** The columns read from the file, in the read's order. */
  private final List<ColumnSpec> fileColumns = new ArrayList<>();

  /** For each of the read's columns, its index in {@link #fileColumns}; -1 for a partition's. */
  private final int[] fileColumn;

  private final PartitionValues constants;
  private long skip;
  private long groupLeft;
  private long groupFirstRow;
  private long nextGroupFirstRow;

  /** Set by the first close, whichever thread it comes from: the rest do nothing. */
  private final AtomicBoolean closed = new AtomicBoolean();

  ParquetRunReader(ReadRun run, ReadConfig config, Configuration conf) throws IOException {
    this(run, config, conf, null, null, null);
  }

  /**
   * A reader of {@code run}; with {@code sent}, the file's status and footer as the driver read
   * them, which it then does not ask the file system for. The time it waits for remote storage is
   * added to {@code storageWait} (may be null); its page arrays come from {@code arrays} and go
   * back there when it closes (may be null: allocated).
   */
  ParquetRunReader(
      ReadRun run,
      ReadConfig config,
      Configuration conf,
      FileFooter sent,
      LongAdder storageWait,
      PageArrays arrays)
      throws IOException {
    this.run = run;
    this.config = config;
    int columns = config.columns().size();
    this.constants = PartitionValues.of(config, run.path());
    this.fileColumn = new int[columns];
    Arrays.fill(fileColumn, -1);
    Path path = new Path(run.path());
    OpenCounts.opened(OpenCounts.Kind.PARQUET_FILE_READERS);
    try {
      FileStatus status;
      List<BlockMetaData> groups;
      MessageType file;
      if (sent != null) {
        this.reader = null;
        status = sent.status();
        ParquetMetadata footer = sent.read();
        List<BlockMetaData> blocks = footer.getBlocks();
        int end = run.firstRowGroup() + run.rowGroups();
        if (run.firstRowGroup() < 0 || end > blocks.size()) {
          throw new IllegalStateException(
              run.describe()
                  + ": its footer has "
                  + blocks.size()
                  + " row groups (expected: the footer planning read; load again)");
        }
        groups = blocks.subList(run.firstRowGroup(), end);
        file = footer.getFileMetaData().getSchema();
      } else {
        ParquetReadOptions options =
            HadoopReadOptions.builder(conf, path)
                .withRange(run.start(), run.start() + run.length())
                .build();
        // one look at the file: its status serves the footer's read and the pages'
        status = path.getFileSystem(conf).getFileStatus(path);
        this.reader = new ParquetFileReader(HadoopInputFile.fromStatus(status, conf), options);
        groups = reader.getRowGroups();
        file = reader.getFileMetaData().getSchema();
      }
      long rows = 0;
      for (BlockMetaData block : groups) {
        rows += block.getRowCount();
      }
      if (rows != run.groupRows() || groups.size() != run.rowGroups()) {
        throw RunCheck.changed(run, rows);
      }
      List<Type> fields = new ArrayList<>();
      List<String> inFile = new ArrayList<>();
      for (int c = 0; c < columns; c++) {
        ColumnSpec column = config.columns().get(c);
        if (constants.constant(c)) {
          continue;
        }
        String name = config.names().nameIn(file, column.name());
        if (name == null) {
          throw ColumnNames.missing(column.name(), run.path());
        }
        fileColumn[c] = fileColumns.size();
        fileColumns.add(column);
        inFile.add(name);
        fields.add(file.getType(name));
      }
      this.requested = new MessageType(file.getName(), fields);
      for (String name : inFile) {
        descriptors.add(requested.getColumnDescription(leaf(requested, name)));
      }
      this.pages =
          new FilePages(
              status,
              run.path(),
              groups,
              fileColumns,
              descriptors,
              conf,
              config.verifyChecksums(),
              run.kept() == null ? run.skipRows() + run.rows() : run.groupRows(),
              storageWait,
              arrays);
    } catch (IOException | RuntimeException | Error e) {
      close();
      throw e;
    }
    this.decoders = new ChunkDecoder[fileColumns.size()];
    this.skip = run.skipRows();
    this.nextGroupFirstRow = run.firstRow();
  }

  /** The path of the one leaf of top-level column {@code name}. */
  private static String[] leaf(MessageType schema, String name) {
    for (ColumnDescriptor column : schema.getColumns()) {
      if (column.getPath()[0].equals(name)) {
        return column.getPath();
      }
    }
    throw new IllegalStateException("no leaf column under '" + name + "' in " + schema);
  }

  @Override
  public int read(ShuffleWindow window, int atRow, int rows) throws IOException {
    KeptRows kept = run.kept();
    while (true) {
      if (groupLeft == 0) {
        nextGroup();
      }
      long position = nextGroupFirstRow - groupLeft;
      if (kept != null) {
        long deleted = kept.deletedFrom(position, nextGroupFirstRow);
        if (deleted > 0) {
          pass((int) deleted);
          continue;
        }
      }
      long together = kept == null ? groupLeft : kept.keptFrom(position, nextGroupFirstRow);
      if (skip > 0) {
        int passed = (int) Math.min(skip, together);
        pass(passed);
        skip -= passed;
        continue;
      }
      int n = (int) Math.min(rows, together);
      for (int c = 0; c < fileColumn.length; c++) {
        if (fileColumn[c] < 0) {
          constants.fill(c, window, atRow, n);
          continue;
        }
        ChunkDecoder decoder = decoders[fileColumn[c]];
        if (config.columns().get(c).variable()) {
          decoder.readVariable(n, window, c, atRow);
        } else {
          decoder.read(n, window.buffer(), window.offset(c, atRow, n));
        }
      }
      groupLeft -= n;
      return n;
    }
  }

  /**
   * Passes over the next {@code rows} rows of the group: whole pages by their headers, the rest
   * decoded and checked ({@link ChunkDecoder#pass}).
   */
  private void pass(int rows) throws IOException {
    for (ChunkDecoder decoder : decoders) {
      decoder.pass(rows);
    }
    groupLeft -= rows;
  }

  private void nextGroup() throws IOException {
    long groupRows = pages.nextGroup();
    if (groupRows < 0) {
      throw RunCheck.endedEarly(run);
    }
    groupFirstRow = nextGroupFirstRow;
    groupLeft = groupRows;
    nextGroupFirstRow = groupFirstRow + groupLeft;
    for (int c = 0; c < decoders.length; c++) {
      decoders[c] =
          new ChunkDecoder(
              fileColumns.get(c),
              descriptors.get(c),
              requested,
              pages.pages(c),
              run.path(),
              groupFirstRow);
    }
  }

  @Override
  public void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      OpenCounts.closed(OpenCounts.Kind.PARQUET_FILE_READERS);
      try {
        if (pages != null) {
          pages.close();
        }
      } finally {
        if (reader != null) {
          reader.close();
        }
      }
    }
  }
}
