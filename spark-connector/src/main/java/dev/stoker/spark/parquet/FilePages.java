package dev.stoker.spark.parquet;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/**
 * The pages of some columns of a file's row groups, group after group, each column through a {@link
 * ColumnPages} of its own over the file's bytes ({@link FileBytes}: a local file read directly, its
 * Hadoop checksums verified, else fetched ahead by coalesced range requests). Page checksums are
 * verified when Parquet's {@code parquet.page.verify-checksum.enabled} says so, as Parquet's reader
 * does.
 */
public final class FilePages implements Closeable {
  /**
   * Bytes fetched past a chunk's estimated share of the rows a reader takes from it: a page or so;
   * what the estimate misses is read when asked for.
   */
  private static final long TAIL_SLACK_BYTES = 1 << 20;

  private final String path;
  private final List<BlockMetaData> groups;
  private final List<ColumnDescriptor> descriptors;
  private final FileBytes bytes;
  private final PageDecompressor decompressor;
  private final ColumnPages[] columns;
  private int group;

  /**
   * Pages of {@code columns} (described by {@code descriptors}) in row groups {@code groups} of
   * {@code file}, named {@code path} in messages, of which the reader takes the first {@code
   * rowsToRead} rows; the time it waits for remote storage is added to {@code storageWait} (may be
   * null).
   */
  FilePages(
      FileStatus file,
      String path,
      List<BlockMetaData> groups,
      List<ColumnSpec> columns,
      List<ColumnDescriptor> descriptors,
      Configuration conf,
      boolean verifyChecksums,
      long rowsToRead,
      LongAdder storageWait,
      PageArrays arrays)
      throws IOException {
    this.path = path;
    this.groups = groups;
    this.descriptors = descriptors;
    for (BlockMetaData block : groups) {
      for (ColumnDescriptor descriptor : descriptors) {
        if (chunk(block, descriptor).isEncrypted()) {
          throw new IllegalStateException(
              "column '"
                  + String.join(".", descriptor.getPath())
                  + "' of file '"
                  + path
                  + "' is encrypted (expected: a plaintext column; Spark's "
                  + "reader decrypts it)");
        }
      }
    }
    this.bytes = FileBytes.open(file, conf, ranges(rowsToRead), storageWait);
    this.decompressor = new PageDecompressor(conf);
    this.columns = new ColumnPages[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      this.columns[c] =
          new ColumnPages(bytes, decompressor, path, columns.get(c), verifyChecksums, arrays);
    }
  }

  /** Moves to the next row group: its rows, or -1 past the last. */
  long nextGroup() {
    if (group == groups.size()) {
      return -1;
    }
    BlockMetaData block = groups.get(group++);
    for (int c = 0; c < columns.length; c++) {
      ColumnChunkMetaData chunk = chunk(block, descriptors.get(c));
      columns[c].start(
          chunk.getCodec(), chunk.getStartingPos(), chunk.getTotalSize(), chunk.getValueCount());
    }
    return block.getRowCount();
  }

  /**
   * The byte ranges of the column chunks the reader will read, group by group, for its first {@code
   * rowsToRead} rows: in the group where they end, the share of each chunk that holds them (pages
   * hold rows evenly enough), and {@link #TAIL_SLACK_BYTES} more; none past it.
   */
  private List<List<FileRange>> ranges(long rowsToRead) {
    List<List<FileRange>> ranges = new ArrayList<>();
    long rowsBefore = 0;
    for (BlockMetaData block : groups) {
      if (rowsBefore >= rowsToRead) {
        break;
      }
      long rows = block.getRowCount();
      double share = rows <= 0 ? 1 : Math.min(1.0, (double) (rowsToRead - rowsBefore) / rows);
      List<FileRange> chunks = new ArrayList<>();
      for (ColumnDescriptor descriptor : descriptors) {
        ColumnChunkMetaData chunk = chunk(block, descriptor);
        long size = chunk.getTotalSize();
        if (share < 1) {
          size = Math.min(size, (long) Math.ceil(size * share) + TAIL_SLACK_BYTES);
        }
        chunks.add(range(chunk.getStartingPos(), size));
      }
      ranges.add(chunks);
      rowsBefore += rows;
    }
    return ranges;
  }

  private FileRange range(long start, long size) {
    if (start < 0 || size < 0 || start + size < 0) {
      throw new IllegalStateException(
          "file '"
              + path
              + "' has a column chunk of "
              + size
              + " bytes at byte "
              + start
              + " (expected: a file as Parquet writes it)");
    }
    return new FileRange(start, start + size);
  }

  /** The pages of column {@code c} in the current row group. */
  PageReader pages(int c) {
    return columns[c];
  }

  private ColumnChunkMetaData chunk(BlockMetaData block, ColumnDescriptor descriptor) {
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      if (Arrays.equals(chunk.getPath().toArray(), descriptor.getPath())) {
        return chunk;
      }
    }
    throw new IllegalStateException(
        "file '"
            + path
            + "' has no column chunk "
            + Arrays.toString(descriptor.getPath())
            + " in its row group at byte "
            + block.getStartingPos());
  }

  @Override
  public void close() throws IOException {
    for (ColumnPages column : columns) {
      column.release();
    }
    try {
      bytes.close();
    } finally {
      decompressor.close();
    }
  }
}
