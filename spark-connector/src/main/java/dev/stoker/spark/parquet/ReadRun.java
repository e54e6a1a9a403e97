package dev.stoker.spark.parquet;

import java.io.Serializable;

/**
 * Consecutive row groups of one file that a rank reads, of which it takes rows {@code [skipRows,
 * skipRows + rows)}: one open of Spark's reader on the split {@code [start, start + length)}.
 *
 * @param firstRowGroup the ordinal of the first row group
 * @param rowGroups how many row groups, from the first
 * @param firstRow the index in the file of the first row group's first row
 * @param groupRows the rows of those row groups, all of them
 * @param bytes the compressed bytes of the columns read, in those row groups
 * @param decodable whether {@link ChunkDecoder} reads every column read (else Spark's reader)
 * @param inputRow the ordinal in the read's input (every file's rows in listing order) of the run's
 *     first row read, or -1 where not known
 * @param kept for a table's file with deleted rows, the rows of the run's row groups that its
 *     snapshot keeps; else null. Then {@code skipRows} and {@code rows} count kept rows only.
 */
public record ReadRun(
    String path,
    long start,
    long length,
    int firstRowGroup,
    int rowGroups,
    long firstRow,
    long groupRows,
    long skipRows,
    long rows,
    long bytes,
    boolean decodable,
    long inputRow,
    KeptRows kept)
    implements Serializable {

  /** A run whose rows' ordinals in the input are not known. */
  public ReadRun(
      String path,
      long start,
      long length,
      int firstRowGroup,
      int rowGroups,
      long firstRow,
      long groupRows,
      long skipRows,
      long rows,
      long bytes,
      boolean decodable) {
    this(
        path,
        start,
        length,
        firstRowGroup,
        rowGroups,
        firstRow,
        groupRows,
        skipRows,
        rows,
        bytes,
        decodable,
        -1,
        null);
  }

  /** This run with {@code count} rows from its first (more: it reads on into its row group). */
  ReadRun withRows(long count) {
    return new ReadRun(
        path,
        start,
        length,
        firstRowGroup,
        rowGroups,
        firstRow,
        groupRows,
        skipRows,
        count,
        bytes,
        decodable,
        inputRow,
        kept);
  }

  /** E.g. {@code row groups 2..3 of file 'hdfs://nn/data/part-0.parquet'}. */
  String describe() {
    return (rowGroups == 1
            ? "row group " + firstRowGroup
            : "row groups " + firstRowGroup + ".." + (firstRowGroup + rowGroups - 1))
        + " of file '"
        + path
        + "'";
  }
}
