package dev.stoker.loader;

import dev.stoker.loader.metrics.EpochCounters;
import dev.stoker.loader.sampler.EpochSplit;

/**
 * A {@link StreamedDataset}, cut into batches as its rows arrive: with a known row count the batch
 * count is planned from it ({@code dropLast} drops the short tail), else the stream tells at its
 * end. Each epoch opens its own stream with the loader's order and placement.
 */
final class StreamedSource implements LoaderSource {
  private final String loader;
  private final StreamedDataset dataset;
  private final BatchLayout layout;
  private final LoaderOptions options;
  private final Placement placement;
  private final long rowCount;
  private final int batchCount;

  /** Each loading thread's target, reused across epochs. */
  private final ThreadLocal<ColumnTarget> targets = ThreadLocal.withInitial(ColumnTarget::new);

  /** The per-sample transform, or null; and each loading thread's writer for it. */
  private final SampleStage stage;

  private final ThreadLocal<SampleWriter> writers;

  StreamedSource(
      String loader,
      StreamedDataset dataset,
      LoaderOptions options,
      Placement placement,
      BatchLayout layout,
      SampleStage stage) {
    this.loader = loader;
    this.stage = stage;
    this.writers = ThreadLocal.withInitial(() -> new SampleWriter(layout));
    this.dataset = dataset;
    this.layout = layout;
    this.options = options;
    this.placement = placement;
    this.rowCount = dataset.rowCount();
    if (rowCount < StreamedDataset.UNKNOWN_ROWS) {
      throw new IllegalArgumentException(
          "rowCount(): "
              + rowCount
              + " (expected: >= 0, or "
              + StreamedDataset.UNKNOWN_ROWS
              + " when unknown)");
    }
    this.batchCount =
        rowCount < 0 ? -1 : batches(rowCount, options.batchSize(), options.dropLast());
  }

  private static int batches(long rows, int batchSize, boolean dropLast) {
    long count = EpochSplit.batches(rows, batchSize, dropLast);
    if (count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          String.format(
              "rowCount(): %d rows make %d batches of batchSize=%d (expected: at most %d batches "
                  + "per epoch; raise batchSize)",
              rows, count, batchSize, Integer.MAX_VALUE));
    }
    return (int) count;
  }

  @Override
  public Schema schema() {
    return layout.schema();
  }

  @Override
  public int batchCount() {
    return batchCount;
  }

  /** The batches of epoch {@code epoch}: fewer if the dataset resumes it mid-way. */
  @Override
  public int batchCount(int epoch) {
    long rows = rowCount < 0 ? -1 : dataset.rowCount(epoch);
    return rows == rowCount
        ? batchCount
        : rows < 0 ? -1 : batches(rows, options.batchSize(), options.dropLast());
  }

  @Override
  public long droppedRows(int epoch) {
    long rows = rowCount < 0 ? -1 : dataset.rowCount(epoch);
    return rows < 0 ? -1 : options.dropLast() ? rows % options.batchSize() : 0;
  }

  @Override
  public long droppedRowsAllRanks(int epoch) {
    return -1; // each rank streams its own rows: only the rank knows its part
  }

  @Override
  public EpochSource open(int epoch, EpochCounters counters) throws Exception {
    ChunkStream stream =
        dataset.open(
            new StreamRequest(
                epoch, options.shuffle(), options.seed(), placement.rank(), placement.worldSize()));
    if (stream == null) {
      throw new IllegalStateException("open(): null (expected: a stream of epoch " + epoch + ")");
    }
    long rows = rowCount < 0 ? rowCount : dataset.rowCount(epoch);
    int batches = batchCount(epoch);
    long neededRows =
        rows < 0 ? Long.MAX_VALUE : Math.min(rows, (long) batches * options.batchSize());
    return new StreamedEpoch(
        loader,
        epoch,
        layout,
        new ChunkWindow(stream, neededRows, options.timeoutNanos()),
        rows,
        batches,
        options.dropLast(),
        targets,
        stage == null
            ? null
            : new TransformedRows(
                loader, epoch, placement.rank(), stage, options.onBadSample(), counters, writers));
  }

  @Override
  public String describe() {
    return rowCount < 0 ? "a stream" : "a stream of " + rowCount + " rows";
  }
}
