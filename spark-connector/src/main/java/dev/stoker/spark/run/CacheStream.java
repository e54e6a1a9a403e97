package dev.stoker.spark.run;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.ColumnTarget;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.sampler.Permutations;
import dev.stoker.spark.shard.MappedShard;
import dev.stoker.spark.shard.RowConverter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One epoch of a rank's rows from its shard cache: every row once, in an order shuffled over the
 * whole rank by {@code (seed, rank, epoch)} (or in order without shuffle), handed to the loader in
 * chunks of up to {@code chunkRows} rows that are random reads of the mapped shard. The shard is
 * checked for truncation before each chunk.
 */
final class CacheStream implements ChunkStream {
  private final MappedShard shard;
  private final RowConverter[] converters;
  private final ByteBuffer[][] segments;
  private final int[] order;
  private final int rows;
  private final int chunkRows;
  private int next;

  CacheStream(MappedShard shard, RowConverter[] converters, StreamRequest request, int chunkRows) {
    this.shard = shard;
    this.converters = converters;
    this.rows = Math.toIntExact(shard.rows());
    this.chunkRows = chunkRows;
    this.order =
        request.shuffle()
            ? Permutations.windowPermutation(
                rows, request.seed(), request.rank(), -1, request.epoch())
            : null;
    int columns = shard.layout().columns();
    this.segments = new ByteBuffer[columns][];
    for (int c = 0; c < columns; c++) {
      ByteBuffer[] mapped = shard.segments(c);
      segments[c] = new ByteBuffer[mapped.length];
      for (int s = 0; s < mapped.length; s++) {
        segments[c][s] = mapped[s].duplicate().order(ByteOrder.nativeOrder());
      }
    }
  }

  @Override
  public ColumnChunk next() throws Exception {
    if (next >= rows) {
      return null;
    }
    shard.check();
    int first = next;
    int count = Math.min(chunkRows, rows - first);
    next += count;
    return new Chunk(first, count);
  }

  @Override
  public void close() {}

  /** Rows {@code [first, first + rows)} of the epoch's order. */
  private final class Chunk implements ColumnChunk {
    private final int first;
    private final int rows;

    Chunk(int first, int rows) {
      this.first = first;
      this.rows = rows;
    }

    @Override
    public int rows() {
      return rows;
    }

    @Override
    public void copyTo(int field, int fromRow, ColumnTarget target) {
      RowConverter converter = converters[field];
      int rowBytes = shard.layout().rowBytes(field);
      for (int i = 0; i < target.rows(); i++) {
        int position = first + fromRow + i;
        long row = order == null ? position : order[position];
        ByteBuffer segment = segments[field][shard.segmentIndex(field, row)];
        int offset = shard.offset(field, row);
        if (converter == null) {
          target.put(segment, offset, rowBytes);
        } else {
          converter.write(segment, offset, target);
        }
      }
    }
  }
}
