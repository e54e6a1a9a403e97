package dev.stoker.spark.parquet;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
  private final String path;
  private final List<BlockMetaData> groups;
  private final List<ColumnDescriptor> descriptors;
  private final FileBytes bytes;
  private final PageDecompressor decompressor;
  private final ColumnPages[] columns;
  private int group;

  /**
   * Pages of {@code columns} (described by {@code descriptors}) in row groups {@code groups} of
   * {@code file}, named {@code path} in messages.
   */
  FilePages(
      FileStatus file,
      String path,
      List<BlockMetaData> groups,
      List<ColumnSpec> columns,
      List<ColumnDescriptor> descriptors,
      Configuration conf,
      boolean verifyChecksums)
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
    List<List<FileRange>> ranges = new ArrayList<>();
    for (BlockMetaData block : groups) {
      List<FileRange> chunks = new ArrayList<>();
      for (ColumnDescriptor descriptor : descriptors) {
        ColumnChunkMetaData chunk = chunk(block, descriptor);
        chunks.add(range(chunk.getStartingPos(), chunk.getTotalSize()));
      }
      ranges.add(chunks);
    }
    this.bytes = FileBytes.open(file, conf, ranges);
    this.decompressor = new PageDecompressor(conf);
    this.columns = new ColumnPages[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      this.columns[c] = new ColumnPages(bytes, decompressor, path, columns.get(c), verifyChecksums);
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
    try {
      bytes.close();
    } finally {
      decompressor.close();
    }
  }
}
