package dev.stoker.spark.shard;

import dev.stoker.loader.MapDataset;
import dev.stoker.loader.SampleWriter;
import dev.stoker.loader.Schema;

/**
 * A rank's mapped shard as the loader's indexed source: sample {@code i} is shard row {@code i}.
 * Its size may differ from the shard's rows so that every rank has the same number of samples:
 * smaller drops the shard's last rows, larger wraps around to its first ones (the padding of
 * PyTorch's DistributedSampler). Each sample is one raw copy per column, from any thread.
 */
public final class ShardDataset implements MapDataset {
  private final MappedShard shard;
  private final Schema schema;
  private final int size;

  public ShardDataset(MappedShard shard, int size) {
    if (size < 0 || (size > 0 && shard.rows() == 0)) {
      throw new IllegalArgumentException("dataset of " + size + " samples over a shard of "
          + shard.rows() + " rows (expected: a shard with rows, or no samples)");
    }
    this.shard = shard;
    this.schema = shard.layout().schema();
    this.size = size;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void write(int index, SampleWriter row) {
    long shardRow = index < shard.rows() ? index : index % shard.rows();
    for (int c = 0; c < schema.size(); c++) {
      row.copyRaw(c, shard.segment(c, shardRow), shard.offset(c, shardRow));
    }
  }
}
