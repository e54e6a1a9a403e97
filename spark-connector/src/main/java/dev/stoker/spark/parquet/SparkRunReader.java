package dev.stoker.spark.parquet;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
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
  private long skip;
  private long fileRow;
  private int batchRow;
  private int batchRows;

  SparkRunReader(ReadRun run, ReadConfig config, Configuration conf) throws IOException {
    this.run = run;
    this.config = config;
    this.reader =
        SparkParquet.open(
            run.path(),
            run.start(),
            run.length(),
            config.schema(),
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
        if (column.variable()) {
          VectorCopy.copyVariable(
              batch.column(c), column, batchRow, n, window, c, atRow, run.path(), fileRow);
        } else {
          VectorCopy.copy(
              batch.column(c),
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
