package dev.stoker.spark.rows;

import dev.stoker.spark.shard.ShardBlock;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads an input partition into shard blocks, whatever form Spark gives its rows in: internal rows,
 * one at a time, or columnar batches, a run of rows at a time. Rows are numbered from 0 in their
 * partition, for the errors. A batch is read to its end before the next one is asked for, so
 * readers may reuse its memory.
 */
public final class InputCursor {
  private final RowCopier copier;
  private final Iterator<?> input;
  private final int partition;
  private InternalRow row;
  private ColumnarBatch batch;
  private int position;
  private long index;

  InputCursor(RowCopier copier, Iterator<?> input, int partition) {
    this.copier = copier;
    this.input = input;
    this.partition = partition;
  }

  /** Rows that can be copied now, in one run; 0 at the end of the partition. */
  public int available() {
    while (row == null && (batch == null || position == batch.numRows()) && input.hasNext()) {
      Object next = input.next();
      if (next instanceof InternalRow nextRow) {
        row = nextRow;
        batch = null;
      } else if (next instanceof ColumnarBatch nextBatch) {
        batch = nextBatch;
        position = 0;
      } else {
        throw new IllegalStateException(
            "input partition "
                + partition
                + ": a "
                + next.getClass().getName()
                + " (expected: rows or columnar batches)");
      }
    }
    return row != null ? 1 : batch == null ? 0 : batch.numRows() - position;
  }

  /** Copies the next {@code count} rows (at most {@link #available()}) into {@code block}. */
  public void copyTo(ShardBlock block, int count) {
    if (count <= 0 || count > available()) {
      throw new IllegalArgumentException("copying " + count + " rows of " + available());
    }
    if (row != null) {
      copier.copy(row, block, partition, index);
      row = null;
    } else {
      copier.copy(batch, position, count, block, partition, index);
      position += count;
    }
    index += count;
  }

  /** Rows read so far: the number of the next row in its partition. */
  public long index() {
    return index;
  }
}
