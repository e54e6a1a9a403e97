package dev.stoker.spark.run;

import dev.stoker.loader.Field;
import dev.stoker.spark.rows.BadRowException;
import dev.stoker.spark.rows.InputCursor;
import dev.stoker.spark.rows.RowCopier;
import dev.stoker.spark.run.shard.ShardBlock;
import dev.stoker.spark.run.shard.ShardLayout;
import dev.stoker.spark.run.shard.ShardWriter;
import dev.stoker.spark.parquet.SplitDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
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
  static ShardSource inPlace(scala.collection.Iterator<?> input, RowCopier copier,
      int partition) {
    return new ShardSource() {
      @Override
      public long fill(ShardWriter writer, TaskContext task, LongAccumulator loaded)
          throws IOException {
        InputCursor rows = copier.cursor(new JavaIterator<>(input), partition);
        ShardBlock block = ShardBlock.allocate(copier.layout(), 0,
            copier.layout().rowsPerBlock(BLOCK_BYTES));
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

  /**
   * The rows of input partition {@code partition} of a plain Parquet scan, decoded by Stoker from
   * the partition's file splits into blocks of direct memory and written from there.
   */
  static ShardSource parquet(ParquetInput input, ShardLayout layout, int partition) {
    return new ShardSource() {
      @Override
      public long fill(ShardWriter writer, TaskContext task, LongAccumulator loaded)
          throws IOException {
        List<Field> fields = layout.schema().fields();
        int blockRows = layout.rowsPerBlock(BLOCK_BYTES);
        ByteBuffer[] columns = new ByteBuffer[layout.columns()];
        for (int c = 0; c < columns.length; c++) {
          columns[c] = ByteBuffer.allocateDirect(blockRows * layout.rowBytes(c));
        }
        long row = 0;
        for (SplitDecoder.Split split : input.splits(partition)) {
          long splitStart = row;
          boolean decoding = true;
          try (SplitDecoder decoder = new SplitDecoder(split, fields, input.conf(),
              input.verifyChecksums())) {
            for (int n = decode(decoder, blockRows, columns); n > 0;
                n = decode(decoder, blockRows, columns)) {
              decoding = false;
              writer.write(row, n, columns);
              decoding = true;
              row += n;
              loaded.add(n);
              task.killTaskIfInterrupted();
            }
          } catch (IOException e) {
            if (!decoding) {
              throw e; // the shard's disk, not the input
            }
            throw confirmed(split, row - splitStart, e, blockRows, columns);
          }
        }
        return row;
      }

      /**
       * {@code failure}, met after {@code rows} rows of {@code split}, as an {@link
       * UnreadableInputException} if reading the split again fails alike after as many rows
       * (the file's own fault, which a retry of the stage would meet again), else as it is.
       */
      private IOException confirmed(SplitDecoder.Split split, long rows, IOException failure,
          int blockRows, ByteBuffer[] columns) {
        long again = 0;
        try (SplitDecoder decoder = new SplitDecoder(split, layout.schema().fields(),
            input.conf(), input.verifyChecksums())) {
          for (int n = decode(decoder, blockRows, columns); n > 0 && again <= rows;
              n = decode(decoder, blockRows, columns)) {
            again += n;
          }
        } catch (IOException e) {
          if (again == rows && String.valueOf(e.getMessage()).equals(failure.getMessage())) {
            return new UnreadableInputException(failure.getMessage(), failure);
          }
          failure.addSuppressed(e);
        } catch (RuntimeException e) {
          failure.addSuppressed(e);
        }
        return failure;
      }

      @Override
      public boolean inPlace() {
        return true;
      }
    };
  }

  /** The next rows of {@code decoder}; a null or a row of another length is a bad row. */
  private static int decode(SplitDecoder decoder, int max, ByteBuffer[] columns)
      throws IOException {
    try {
      return decoder.read(max, columns);
    } catch (IllegalArgumentException e) {
      throw new BadRowException(e.getMessage());
    }
  }

  /** The blocks the shuffle sent to a rank expecting {@code expected} rows. */
  static ShardSource shuffled(scala.collection.Iterator<Tuple2<Integer, ShardBlock>> blocks,
      long expected, int rank) {
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
          throw new IllegalStateException(String.format("rank %d: %d rows up to row %d arrived "
              + "(expected: %d rows, each once)", rank, writer.rowsWritten(), writer.extent(),
              expected));
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
