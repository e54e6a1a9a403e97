package dev.stoker.spark.parquet;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.StreamedDataset;
import dev.stoker.loader.memory.HostAllocator;

/**
 * One rank's rows as the loader's streamed source: exactly the partition's rows every epoch, read
 * by a {@link RankStream} (or the streams of a {@link GlobalBatch} taking turns, a {@link
 * TurnStream}) whose shuffle windows come from {@code allocator}.
 */
public final class RankDataset implements StreamedDataset {
  private final ReadConfig config;
  private final RankRuns partition;
  private final HostAllocator allocator;
  private final SourceCounters counters;
  private final Schema schema;

  public RankDataset(
      ReadConfig config, RankRuns partition, HostAllocator allocator, SourceCounters counters) {
    this.config = config;
    this.partition = partition;
    this.allocator = allocator;
    this.counters = counters;
    this.schema = config.loaderSchema();
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public long rowCount() {
    return partition.rows();
  }

  @Override
  public ChunkStream open(StreamRequest request) {
    return TurnStream.open(config, partition, request, allocator, counters, null);
  }
}
