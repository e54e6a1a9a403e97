package dev.stoker.spark.parquet;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * What planning needs of one Parquet file's footer: its schema and, per row group, where it lies,
 * its rows and, per top-level column, its values, nulls and bytes.
 *
 * @param path the file's full path, as Hadoop names it
 * @param footer for a file on remote storage, its status and footer as the ranks get them; else
 *     null
 * @param kept for a data file of a table snapshot that deleted some of its rows, the rows kept;
 *     else null (every row)
 */
public record ParquetFile(
    String path, MessageType schema, List<RowGroup> rowGroups, FileFooter footer, KeptRows kept) {

  /** A file whose footer the ranks read themselves. */
  public ParquetFile(String path, MessageType schema, List<RowGroup> rowGroups) {
    this(path, schema, rowGroups, null, null);
  }

  /** A file every row of which is read. */
  public ParquetFile(String path, MessageType schema, List<RowGroup> rowGroups, FileFooter footer) {
    this(path, schema, rowGroups, footer, null);
  }

  /** This file with {@code sent}, the footer sent to the ranks. */
  ParquetFile withFooter(FileFooter sent) {
    return new ParquetFile(path, schema, rowGroups, sent, kept);
  }

  /** This file with only {@code rows} of it read (null: every row). */
  ParquetFile withKept(KeptRows rows) {
    return new ParquetFile(path, schema, rowGroups, footer, rows);
  }

  /**
   * One row group.
   *
   * @param ordinal its index in the file
   * @param start the offset of its first column chunk
   * @param bytes its compressed bytes (the column chunks back to back)
   * @param firstRow the index in the file of its first row
   * @param columns top-level column name to its chunk's figures
   */
  public record RowGroup(
      int ordinal,
      long start,
      long bytes,
      long rows,
      long firstRow,
      Map<String, ColumnStats> columns)
      implements Serializable {
    /** This row group without its columns' figures: what a plan of its rows needs. */
    public RowGroup placeOnly() {
      return new RowGroup(ordinal, start, bytes, rows, firstRow, Map.of());
    }
  }

  /**
   * The figures of one top-level column in a row group, over its leaves.
   *
   * @param values leaf values, nulls and empty lists included
   * @param nulls null leaf values (nulls and empty lists), or -1 where the footer does not say
   * @param bytes compressed bytes
   * @param decodable whether Stoker's own decoder reads it (see {@link #decodable})
   * @param uncompressed uncompressed bytes of its pages
   */
  public record ColumnStats(
      long values, long nulls, long bytes, boolean decodable, long uncompressed) {
    public ColumnStats(long values, long nulls, long bytes, boolean decodable) {
      this(values, nulls, bytes, decodable, bytes);
    }
  }

  /**
   * Whether {@link ChunkDecoder} reads a column chunk: it is not encrypted, its footer lists the
   * encodings of its pages (writers have for a decade), and those are PLAIN or a dictionary. Others
   * (DELTA_*, BYTE_STREAM_SPLIT, ...) are read by Spark's vectorized reader.
   */
  @SuppressWarnings("deprecation") // PLAIN_DICTIONARY: how v1 writers mark dictionary pages
  static boolean decodable(ColumnChunkMetaData chunk) {
    EncodingStats stats = chunk.getEncodingStats();
    if (stats == null || chunk.isEncrypted()) {
      return false;
    }
    for (Encoding encoding : stats.getDataEncodings()) {
      if (encoding != Encoding.PLAIN
          && encoding != Encoding.PLAIN_DICTIONARY
          && encoding != Encoding.RLE_DICTIONARY) {
        return false;
      }
    }
    for (Encoding encoding : stats.getDictionaryEncodings()) {
      if (encoding != Encoding.PLAIN && encoding != Encoding.PLAIN_DICTIONARY) {
        return false;
      }
    }
    return true;
  }

  static ParquetFile of(String path, ParquetMetadata footer) {
    List<RowGroup> groups = new ArrayList<>();
    long firstRow = 0;
    List<BlockMetaData> blocks = footer.getBlocks();
    for (int i = 0; i < blocks.size(); i++) {
      BlockMetaData block = blocks.get(i);
      Map<String, ColumnStats> columns = new LinkedHashMap<>();
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        Statistics<?> stats = chunk.getStatistics();
        long nulls = stats != null && stats.isNumNullsSet() ? stats.getNumNulls() : -1;
        columns.merge(
            chunk.getPath().toArray()[0],
            new ColumnStats(
                chunk.getValueCount(),
                nulls,
                chunk.getTotalSize(),
                decodable(chunk),
                chunk.getTotalUncompressedSize()),
            (a, b) ->
                new ColumnStats(
                    a.values() + b.values(),
                    a.nulls() < 0 || b.nulls() < 0 ? -1 : a.nulls() + b.nulls(),
                    a.bytes() + b.bytes(),
                    a.decodable() && b.decodable(),
                    a.uncompressed() + b.uncompressed()));
      }
      groups.add(
          new RowGroup(
              i,
              block.getStartingPos(),
              block.getCompressedSize(),
              block.getRowCount(),
              firstRow,
              columns));
      firstRow += block.getRowCount();
    }
    return new ParquetFile(path, footer.getFileMetaData().getSchema(), List.copyOf(groups));
  }

  long rows() {
    long rows = 0;
    for (RowGroup group : rowGroups) {
      rows += group.rows();
    }
    return rows;
  }
}
