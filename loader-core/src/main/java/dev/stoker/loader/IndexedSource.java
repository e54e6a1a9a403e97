package dev.stoker.loader;

import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.sampler.BatchSampler;
import dev.stoker.loader.sampler.DistributedSampler;
import dev.stoker.loader.state.InputFingerprint;
import dev.stoker.loader.state.LoaderState;

/**
 * A {@link MapDataset} in the order of a distributed, batching sampler; a resumed epoch starts at
 * the position of the epoch's order its state consumed up to, and splits only the rest.
 */
final class IndexedSource implements LoaderSource {
  private final MapDataset dataset;
  private final BatchLayout layout;
  private final String loader;
  private final OnBadSample onBadSample;
  private final DistributedSampler shard;
  private final BatchSampler sampler;
  private final int worldSize;

  /** The epoch resumed mid-way and its sampler (-1 and null: none). */
  private final int resumedEpoch;

  private final BatchSampler resumed;

  /** Each loading thread's writer, reused across epochs. */
  private final ThreadLocal<SampleWriter> writers;

  /** The per-sample transform, or null. */
  private final SampleStage stage;

  IndexedSource(
      String loader,
      MapDataset dataset,
      LoaderOptions options,
      Placement placement,
      BatchLayout layout,
      SampleStage stage,
      LoaderState resumeFrom) {
    this.loader = loader;
    this.stage = stage;
    this.dataset = dataset;
    this.layout = layout;
    this.onBadSample = options.onBadSample();
    this.worldSize = placement.worldSize();
    this.shard =
        new DistributedSampler(
            dataset.size(),
            placement.rank(),
            placement.worldSize(),
            options.shuffle(),
            options.seed(),
            options.dropLast());
    this.sampler = new BatchSampler(shard, options.batchSize(), options.dropLast());
    if (resumeFrom != null && resumeFrom.input().equals(InputFingerprint.ofRows(dataset.size()))) {
      Resume.checkIndexed(resumeFrom, dataset.size());
    }
    // a changed input the caller accepted may hold fewer rows than the state consumed
    long start = resumeFrom == null ? 0 : Math.min(resumeFrom.consumedRows(), dataset.size());
    this.resumedEpoch = start > 0 ? resumeFrom.epoch() : -1;
    this.resumed =
        start > 0
            ? new BatchSampler(
                new DistributedSampler(
                    dataset.size(),
                    (int) start,
                    placement.rank(),
                    placement.worldSize(),
                    options.shuffle(),
                    options.seed(),
                    options.dropLast()),
                options.batchSize(),
                options.dropLast())
            : null;
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
  public int batchCount(int epoch) {
    return samplerOf(epoch).batchCount();
  }

  @Override
  public long startRow(int epoch) {
    return epoch == resumedEpoch ? ((DistributedSampler) resumed.sampler()).start() : 0;
  }

  private BatchSampler samplerOf(int epoch) {
    return epoch == resumedEpoch ? resumed : sampler;
  }

  @Override
  public long droppedRows(int epoch) {
    return samplerOf(epoch).droppedSamples();
  }

  @Override
  public long droppedRowsAllRanks(int epoch) {
    BatchSampler batches = samplerOf(epoch);
    return (long) batches.droppedSamples() * worldSize
        + ((DistributedSampler) batches.sampler()).droppedCount();
  }

  @Override
  public EpochSource open(int epoch, EpochCounters counters) {
    return new IndexedEpoch(
        loader,
        dataset,
        layout,
        stage,
        samplerOf(epoch).epoch(epoch),
        onBadSample,
        counters,
        writers);
  }

  @Override
  public String describe() {
    return dataset.size() + " samples";
  }
}
