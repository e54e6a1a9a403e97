package dev.stoker.spark.parquet;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads a run with Spark's vectorized Parquet reader (off-heap vectors), copying each batch's rows
 * into the window column by column: for columns whose encodings Stoker does not decode itself. Rows
 * before the run's first, and rows a table's snapshot deleted, are read and passed over.
 */
public final class SparkRunReader implements RunReader {
  private final ReadRun run;
  private final ReadConfig config;
  private final SparkParquet.Reader reader;
  private final ColumnarBatch batch;

  /** The values of the read's partition columns in this file. */
  private final PartitionValues constants;

  /** For each of the read's columns, its column in the reader's batches; -1 for a partition's. */
  private final int[] batchColumn;

  private long skip;
  private long fileRow;
  private int batchRow;
  private int batchRows;

  SparkRunReader(ReadRun run, ReadConfig config, Configuration conf) throws IOException {
    this.run = run;
    this.config = config;
    this.constants = PartitionValues.of(config, run.path());
    this.batchColumn = new int[config.columns().size()];
    StructType requested = new StructType();
    for (int c = 0; c < batchColumn.length; c++) {
      batchColumn[c] = constants.constant(c) ? -1 : requested.size();
      if (batchColumn[c] >= 0) {
        requested = requested.add(config.schema().fields()[c]);
      }
    }
    this.reader =
        SparkParquet.open(
            run.path(),
            run.start(),
            run.length(),
            requested,
            conf,
            config.readerRows(),
            config.names());
    if (reader.rowCount() != run.groupRows()) {
      reader.close();
      throw RunCheck.changed(run, reader.rowCount());
    }
    this.batch = reader.resultBatch();
    this.skip = run.skipRows();
    this.fileRow = run.firstRow();
  }

  @Override
  public int read(ShuffleWindow window, int atRow, int rows) throws IOException {
    KeptRows kept = run.kept();
    while (true) {
      if (batchRow == batchRows) {
        if (!reader.nextBatch()) {
          throw RunCheck.endedEarly(run);
        }
        batchRow = 0;
        batchRows = batch.numRows();
      }
      long batchEnd = fileRow + batchRows - batchRow;
      if (kept != null) {
        long deleted = kept.deletedFrom(fileRow, batchEnd);
        if (deleted > 0) {
          batchRow += (int) deleted;
          fileRow += deleted;
          continue;
        }
      }
      long together = kept == null ? batchRows - batchRow : kept.keptFrom(fileRow, batchEnd);
      if (skip > 0) {
        int passed = (int) Math.min(skip, together);
        skip -= passed;
        batchRow += passed;
        fileRow += passed;
        continue;
      }
      int n = (int) Math.min(rows, together);
      for (int c = 0; c < config.columns().size(); c++) {
        ColumnSpec column = config.columns().get(c);
        if (batchColumn[c] < 0) {
          constants.fill(c, window, atRow, n);
        } else if (column.variable()) {
          VectorCopy.copyVariable(
              batch.column(batchColumn[c]),
              column,
              batchRow,
              n,
              window,
              c,
              atRow,
              run.path(),
              fileRow);
        } else {
          VectorCopy.copy(
              batch.column(batchColumn[c]),
              column,
              batchRow,
              n,
              window.address(c, atRow, n),
              run.path(),
              fileRow);
        }
      }
      batchRow += n;
      fileRow += n;
      return n;
    }
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
