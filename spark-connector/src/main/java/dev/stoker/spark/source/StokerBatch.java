package dev.stoker.spark.source;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.parquet.PlanQuality;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.ReadRun;
import dev.stoker.spark.parquet.SourceDataset;
import dev.stoker.spark.ui.StokerRead;
import dev.stoker.spark.ui.StokerUi;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.slf4j.LoggerFactory;

/**
 * A planned scan as Spark runs it: one partition per rank, in rank order. Planning its partitions
 * tells the Stoker page, once, which query runs it.
 */
final class StokerBatch implements Batch {
  /** Spark's local property with the running query's SQL execution id. */
  private static final String EXECUTION_ID = "spark.sql.execution.id";

  private final ReadPlan plan;
  private final ReadConfig config;
  private final SourceDataset dataset;
  private final AtomicBoolean told = new AtomicBoolean();

  StokerBatch(ReadPlan plan, ReadConfig config, SourceDataset dataset) {
    this.plan = plan;
    this.config = config;
    this.dataset = dataset;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    List<List<ReadRun>> ranks = plan.ranks();
    InputPartition[] partitions = new InputPartition[ranks.size()];
    for (int rank = 0; rank < partitions.length; rank++) {
      partitions[rank] = new RankPartition(plan.rank(rank));
    }
    if (!told.getAndSet(true)) {
      tellThePage(ranks.size());
    }
    return partitions;
  }

  /**
   * Lists this scan on the Stoker page; the page's failure never fails the read. A shuffled read's
   * order is measured ({@link PlanQuality}, tens of ms) on a thread of its own, off the read's
   * path, and the scan listed once it is.
   */
  private void tellThePage(int ranks) {
    SparkContext spark;
    String executionId;
    try {
      spark = SparkContext.getOrCreate();
      executionId = spark.getLocalProperty(EXECUTION_ID);
    } catch (RuntimeException | LinkageError e) {
      cannotList(e);
      return;
    }
    LoaderOptions options = config.loader().options();
    long planned = System.currentTimeMillis();
    boolean labelled = dataset.options().labelColumn() != null;
    if (config.tokens() != null || !options.shuffle() && !labelled) {
      list(spark, executionId, planned, ranks, config.tokens() != null ? null : "storage order");
      return;
    }
    Thread measure =
        new Thread(
            () -> {
              String order;
              try {
                PlanQuality.Measure measured =
                    PlanQuality.of(
                        plan,
                        config.windowRows(),
                        options.shuffle(),
                        options.seed(),
                        config.epoch(),
                        PlanQuality.labels(dataset),
                        options.batchSize());
                order =
                    measured == null
                        ? null
                        : (options.shuffle() ? "" : "storage order: ") + measured.describe();
              } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
                order = "not measured: " + e; // the read is listed all the same
              }
              list(spark, executionId, planned, ranks, order);
            },
            "stoker-order-measure");
    measure.setDaemon(true);
    measure.start();
  }

  private void list(SparkContext spark, String executionId, long planned, int ranks, String order) {
    try {
      StokerUi.of(spark)
          .read(
              spark,
              new StokerRead(
                  UUID.randomUUID().toString(),
                  planned,
                  executionId,
                  dataset.input(),
                  ranks,
                  plan.rows(),
                  plan.batchesPerRank(),
                  config.loader().options().batchSize(),
                  plan.droppedRows(),
                  order));
    } catch (RuntimeException | LinkageError e) {
      cannotList(e);
    }
  }

  private void cannotList(Throwable e) {
    LoggerFactory.getLogger(StokerBatch.class)
        .warn(
            "stoker: the Stoker page cannot list the read of {}: {}",
            dataset.input(),
            e.toString());
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new StokerColumnarReaderFactory(config);
  }
}
