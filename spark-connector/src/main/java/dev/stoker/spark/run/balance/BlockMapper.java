package dev.stoker.spark.run.balance;

import dev.stoker.spark.rows.InputCursor;
import dev.stoker.spark.rows.RowCopier;
import dev.stoker.spark.shard.ShardBlock;
import dev.stoker.spark.shard.ShardLayout;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.Function2;
import scala.Tuple2;

/**
 * The map side of the one balancing shuffle: numbers each row of an input partition (internal rows
 * or columnar batches) globally (the partition's offset plus its position), sends row {@code i} to
 * rank {@code i % worldSize} at shard row {@code i / worldSize}, and emits the rows of each rank as
 * blocks of consecutive shard rows keyed by rank. Where a row lands depends on the numbering only,
 * never on the order in which blocks arrive, so a retried rank builds the same shard. Holds one
 * open block per rank.
 */
public final class BlockMapper
    implements Function2<Integer, Iterator<Object>, Iterator<Tuple2<Integer, ShardBlock>>> {
  private static final long serialVersionUID = 1L;

  private final RowCopier copier;
  private final long[] offsets;
  private final long[] counts;
  private final int worldSize;
  private final int rowsPerBlock;

  /**
   * @param counts rows of every input partition, as counted before
   * @param blockBytes about how large a block may grow; one is open per rank
   */
  public BlockMapper(RowCopier copier, long[] counts, int worldSize, long blockBytes) {
    this.copier = copier;
    this.counts = counts.clone();
    this.offsets = RowCounts.offsets(counts);
    this.worldSize = worldSize;
    this.rowsPerBlock = copier.layout().rowsPerBlock(blockBytes);
  }

  /** About how large blocks should be for {@code worldSize} ranks: 64 MiB over all ranks. */
  public static long blockBytes(int worldSize) {
    return Math.max(64L << 10, Math.min(4L << 20, (64L << 20) / worldSize));
  }

  @Override
  public Iterator<Tuple2<Integer, ShardBlock>> call(Integer partition, Iterator<Object> input) {
    return new Blocks(partition, copier.cursor(input, partition));
  }

  private final class Blocks implements Iterator<Tuple2<Integer, ShardBlock>> {
    private final int partition;
    private final InputCursor rows;
    private final ShardBlock[] open = new ShardBlock[worldSize];
    private final ArrayDeque<Tuple2<Integer, ShardBlock>> ready = new ArrayDeque<>();
    private boolean flushed;

    Blocks(int partition, InputCursor rows) {
      this.partition = partition;
      this.rows = rows;
    }

    @Override
    public boolean hasNext() {
      while (ready.isEmpty() && !flushed) {
        if (rows.available() > 0) {
          addNext();
        } else {
          flush();
        }
      }
      return !ready.isEmpty();
    }

    @Override
    public Tuple2<Integer, ShardBlock> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return ready.poll();
    }

    private void addNext() {
      long index = rows.index();
      if (index >= counts[partition]) {
        throw changed("more than " + counts[partition]);
      }
      long global = offsets[partition] + index;
      int rank = (int) (global % worldSize);
      ShardBlock block = open[rank];
      if (block == null) {
        block = ShardBlock.allocate(copier.layout(), global / worldSize, rowsPerBlock);
        open[rank] = block;
      }
      rows.copyTo(block, 1);
      if (block.isFull()) {
        ready.add(new Tuple2<>(rank, block));
        open[rank] = null;
      }
    }

    private void flush() {
      flushed = true;
      if (rows.index() != counts[partition]) {
        throw changed(Long.toString(rows.index()));
      }
      ShardLayout layout = copier.layout();
      for (int rank = 0; rank < worldSize; rank++) {
        if (open[rank] != null) {
          ready.add(new Tuple2<>(rank, open[rank].trimmed(layout)));
          open[rank] = null;
        }
      }
    }

    private InputChangedException changed(String read) {
      return new InputChangedException(
          String.format(
              "input partition %d: %s rows read after "
                  + "%d were counted (expected: the same rows every time the DataFrame is computed; "
                  + "cache() or checkpoint() a DataFrame that is not deterministic, e.g. one that "
                  + "samples or reads changing files)",
              partition, read, counts[partition]));
    }
  }
}
