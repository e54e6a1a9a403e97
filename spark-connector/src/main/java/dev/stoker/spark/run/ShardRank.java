package dev.stoker.spark.run;

import dev.stoker.loader.DataLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.device.Device;
import dev.stoker.spark.run.balance.RankSizing;
import dev.stoker.spark.shard.MappedShard;
import dev.stoker.spark.shard.Normalization;
import dev.stoker.spark.shard.ShardDataset;
import dev.stoker.spark.shard.ShardFiles;
import java.util.List;

/** A rank on the rows path: its shard, written before the loader starts, read by index. */
final class ShardRank implements RankData {
  private final MappedShard shard;
  private final ShardFiles files;
  private final RankSizing sizing;
  private final int rank;
  private final List<Normalization> normalizations;
  private final double seconds;

  ShardRank(
      MappedShard shard,
      ShardFiles files,
      RankSizing sizing,
      int rank,
      Normalization[] normalizations,
      double seconds) {
    this.shard = shard;
    this.files = files;
    this.sizing = sizing;
    this.rank = rank;
    this.normalizations = List.of(normalizations);
    this.seconds = seconds;
  }

  @Override
  public DataLoader loader(LoaderOptions options, Device device) {
    ShardDataset dataset = new ShardDataset(shard, sizing.samples(), normalizations);
    return DataLoader.builder(dataset).options(options).device(device).build();
  }

  @Override
  public long rows() {
    return shard.rows();
  }

  @Override
  public int samples() {
    return sizing.samples();
  }

  @Override
  public long droppedRows() {
    return sizing.droppedRows(rank);
  }

  @Override
  public long paddedRows() {
    return sizing.paddedRows(rank);
  }

  @Override
  public int batchesPerEpoch() {
    return sizing.batchesPerEpoch();
  }

  @Override
  public String folder() {
    return files.folder().toString();
  }

  @Override
  public long bytes() {
    return shard.bytes();
  }

  @Override
  public double seconds() {
    return seconds;
  }

  @Override
  public MappedShard shard() {
    return shard;
  }

  @Override
  public void release() {
    shard.release();
  }

  @Override
  public void delete() {
    files.delete();
  }
}
