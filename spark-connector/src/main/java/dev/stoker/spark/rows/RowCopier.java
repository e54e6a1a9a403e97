package dev.stoker.spark.rows;

import dev.stoker.spark.shard.ShardBlock;
import dev.stoker.spark.shard.ShardLayout;
import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Copies the declared columns of Spark's rows into shard blocks: one copier per column, in the
 * layout's order, from internal rows or columnar batches. Built on the driver by {@link
 * InputColumns#bind}; serializable, and used by one thread at a time on executors.
 */
public final class RowCopier implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ShardLayout layout;
  private final ColumnCopier[] columns;

  RowCopier(ShardLayout layout, List<ColumnCopier> columns) {
    this.layout = layout;
    this.columns = columns.toArray(new ColumnCopier[0]);
  }

  public ShardLayout layout() {
    return layout;
  }

  /**
   * Copies {@code row} into the next row of {@code block}. {@code partition} and {@code index} (the
   * row's position in its input partition) name it in errors.
   *
   * @throws BadRowException if a value does not fit its column
   */
  public void copy(InternalRow row, ShardBlock block, int partition, long index) {
    int at = block.rows();
    if (at >= block.capacity()) {
      throw new IllegalStateException(block + " is full");
    }
    for (int c = 0; c < columns.length; c++) {
      columns[c].copy(row, block.column(c), at * layout.rowBytes(c), partition, index);
    }
    block.added(1);
  }

  /**
   * Copies rows {@code from .. from + count - 1} of {@code batch} into the next rows of {@code
   * block}; {@code index} is the first one's position in its input partition.
   *
   * @throws BadRowException if a value does not fit its column
   */
  public void copy(
      ColumnarBatch batch, int from, int count, ShardBlock block, int partition, long index) {
    int at = block.rows();
    if (count > block.capacity() - at || from < 0 || from + count > batch.numRows()) {
      throw new IllegalStateException(
          "rows "
              + from
              + "+"
              + count
              + " of a batch of "
              + batch.numRows()
              + " into "
              + block
              + " of "
              + block.capacity());
    }
    for (int c = 0; c < columns.length; c++) {
      columns[c].copy(
          batch.column(columns[c].ordinal),
          from,
          count,
          block.column(c),
          at * layout.rowBytes(c),
          partition,
          index);
    }
    block.added(count);
  }

  /** Reads input partition {@code partition}: internal rows or columnar batches. */
  public InputCursor cursor(Iterator<?> input, int partition) {
    return new InputCursor(this, input, partition);
  }
}
