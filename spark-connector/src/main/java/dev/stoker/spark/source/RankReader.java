package dev.stoker.spark.source;

import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.sampler.EpochSplit;
import dev.stoker.spark.parquet.OpenCounts;
import dev.stoker.spark.parquet.RankDataset;
import dev.stoker.spark.parquet.RankLoader;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.SourceCounters;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

/**
 * Reads one rank in a Spark task: the rank's {@link RankLoader} over its {@link RankDataset} runs
 * the epoch, and each of its batches is handed to Spark as a {@link ColumnarBatch} over the batch's
 * slot, valid until the next call of {@link #next()}. Nothing starts before the first {@code
 * next()}; {@link #close()} (also when the task completes, however it ends) stops the loader and
 * frees the Parquet reader, the shuffle windows and every slot.
 */
final class RankReader implements PartitionReader<ColumnarBatch> {

  private final RankPartition partition;
  private final ReadConfig config;
  private final SourceCounters counters = new SourceCounters();
  private RankLoader loader;
  private BatchIterator batches;
  private SlotBatch slots;
  private ColumnarBatch current;
  private int countOnlyBatches;
  private boolean started;
  private boolean closed;

  RankReader(RankPartition partition, ReadConfig config) {
    this.partition = partition;
    this.config = config;
    TaskContext task = TaskContext.get();
    if (task != null) {
      task.addTaskCompletionListener((TaskCompletionListener) context -> close());
    }
  }

  @Override
  public synchronized boolean next() {
    if (closed) {
      return false;
    }
    if (config.columns().isEmpty()
        || config.delivered() != null && config.delivered().fields().length == 0) {
      return nextCountOnly();
    }
    if (batches == null) {
      start();
    }
    if (!batches.hasNext()) {
      return false;
    }
    current = slots.bind(batches.next());
    counters.batches.increment();
    return true;
  }

  private void start() {
    OpenCounts.opened(OpenCounts.Kind.RANK_READERS);
    started = true;
    loader =
        RankLoader.builder(config, partition.runs())
            .namedAfter("stoker-source")
            .dataset(windows -> new RankDataset(config, partition.runs(), windows, counters))
            .build();
    slots =
        config.delivered() != null
            ? SlotBatch.of(loader.loader().layout().schema(), config.delivered())
            : new SlotBatch(config.columns(), config.schema());
    batches = loader.loader().epoch(config.epoch()).iterator();
  }

  /** Batches of rows without columns, as many and as large as the loader's would be. */
  private boolean nextCountOnly() {
    int batchSize = config.loader().options().batchSize();
    long rows = partition.rows();
    if (countOnlyBatches
        >= EpochSplit.batches(rows, batchSize, config.loader().options().dropLast())) {
      return false;
    }
    long done = (long) countOnlyBatches * batchSize;
    current = SlotBatch.empty((int) Math.min(batchSize, rows - done));
    countOnlyBatches++;
    counters.batches.increment();
    return true;
  }

  @Override
  public ColumnarBatch get() {
    return current;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    RankLoader rank = loader;
    return SourceMetrics.taskValues(counters, rank == null ? null : rank.tokenCounts());
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    current = null;
    if (started) {
      OpenCounts.closed(OpenCounts.Kind.RANK_READERS);
    }
    if (loader != null) {
      loader.close();
    }
  }
}
