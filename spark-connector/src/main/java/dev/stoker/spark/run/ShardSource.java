package dev.stoker.spark.run;

import dev.stoker.spark.rows.InputCursor;
import dev.stoker.spark.rows.RowCopier;
import dev.stoker.spark.shard.ShardBlock;
import dev.stoker.spark.shard.ShardWriter;
import java.io.IOException;
import org.apache.spark.TaskContext;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple2;

/** Where a rank's rows come from: its input partition as is, or its blocks from the shuffle. */
public interface ShardSource {
  /** About how many bytes a block of rows read in place takes before it is written. */
  long BLOCK_BYTES = 4L << 20;

  /**
   * Reads every row of the rank into {@code writer}, adding to {@code loaded} as it goes and
   * stopping if the task is killed. Returns the rank's rows.
   */
  long fill(ShardWriter writer, TaskContext task, LongAccumulator loaded) throws IOException;

  /** Whether the rows are the input's own partition (and may turn out unbalanced). */
  boolean inPlace();

  /** The rows of input partition {@code partition}, copied into blocks here. */
  static ShardSource inPlace(scala.collection.Iterator<?> input, RowCopier copier, int partition) {
    return new ShardSource() {
      @Override
      public long fill(ShardWriter writer, TaskContext task, LongAccumulator loaded)
          throws IOException {
        InputCursor rows = copier.cursor(new JavaIterator<>(input), partition);
        ShardBlock block =
            ShardBlock.allocate(copier.layout(), 0, copier.layout().rowsPerBlock(BLOCK_BYTES));
        for (int ready = rows.available(); ready > 0; ready = rows.available()) {
          rows.copyTo(block, Math.min(ready, block.capacity() - block.rows()));
          if (block.isFull()) {
            writer.write(block);
            loaded.add(block.rows());
            task.killTaskIfInterrupted();
            block = block.reuseAt(rows.index());
          }
        }
        if (block.rows() > 0) {
          writer.write(block);
          loaded.add(block.rows());
        }
        return rows.index();
      }

      @Override
      public boolean inPlace() {
        return true;
      }
    };
  }

  /** The blocks the shuffle sent to a rank expecting {@code expected} rows. */
  static ShardSource shuffled(
      scala.collection.Iterator<Tuple2<Integer, ShardBlock>> blocks, long expected, int rank) {
    return new ShardSource() {
      @Override
      public long fill(ShardWriter writer, TaskContext task, LongAccumulator loaded)
          throws IOException {
        writer.reserve(expected);
        while (blocks.hasNext()) {
          ShardBlock block = blocks.next()._2();
          writer.write(block);
          loaded.add(block.rows());
          task.killTaskIfInterrupted();
        }
        if (writer.rowsWritten() != expected || writer.extent() != expected) {
          throw new IllegalStateException(
              String.format(
                  "rank %d: %d rows up to row %d arrived " + "(expected: %d rows, each once)",
                  rank, writer.rowsWritten(), writer.extent(), expected));
        }
        return expected;
      }

      @Override
      public boolean inPlace() {
        return false;
      }
    };
  }
}
