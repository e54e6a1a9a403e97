package dev.stoker.loader;

import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.sampler.BatchSampler;
import dev.stoker.loader.sampler.DistributedSampler;

/** A {@link MapDataset} in the order of a distributed, batching sampler. */
final class IndexedSource implements LoaderSource {
  private final MapDataset dataset;
  private final BatchLayout layout;
  private final String loader;
  private final OnBadSample onBadSample;
  private final DistributedSampler shard;
  private final BatchSampler sampler;
  private final int worldSize;
  /** Each loading thread's writer, reused across epochs. */
  private final ThreadLocal<SampleWriter> writers;

  IndexedSource(String loader, MapDataset dataset, LoaderOptions options, Placement placement,
      BatchLayout layout) {
    this.loader = loader;
    this.dataset = dataset;
    this.layout = layout;
    this.onBadSample = options.onBadSample();
    this.worldSize = placement.worldSize();
    this.shard = new DistributedSampler(dataset.size(), placement.rank(), placement.worldSize(),
        options.shuffle(), options.seed(), options.dropLast());
    this.sampler = new BatchSampler(shard, options.batchSize(), options.dropLast());
    this.writers = ThreadLocal.withInitial(() -> new SampleWriter(layout));
  }

  @Override
  public Schema schema() {
    return layout.schema();
  }

  @Override
  public int batchCount() {
    return sampler.batchCount();
  }

  @Override
  public long droppedRows() {
    return sampler.droppedSamples();
  }

  @Override
  public long droppedRowsAllRanks() {
    return (long) sampler.droppedSamples() * worldSize + shard.droppedCount();
  }

  @Override
  public EpochSource open(int epoch, EpochCounters counters) {
    return new IndexedEpoch(loader, dataset, layout, sampler.epoch(epoch), onBadSample, counters,
        writers);
  }

  @Override
  public String describe() {
    return dataset.size() + " samples";
  }
}
