package dev.stoker.spark.source;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.parquet.PlanQuality;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.ReadRun;
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
  private final String input;
  private final AtomicBoolean told = new AtomicBoolean();

  StokerBatch(ReadPlan plan, ReadConfig config, String input) {
    this.plan = plan;
    this.config = config;
    this.input = input;
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

  /** Lists this scan on the Stoker page; the page's failure never fails the read. */
  private void tellThePage(int ranks) {
    try {
      SparkContext spark = SparkContext.getOrCreate();
      StokerUi.of(spark)
          .read(
              spark,
              new StokerRead(
                  UUID.randomUUID().toString(),
                  System.currentTimeMillis(),
                  spark.getLocalProperty(EXECUTION_ID),
                  input,
                  ranks,
                  plan.rows(),
                  plan.batchesPerRank(),
                  config.loader().options().batchSize(),
                  plan.droppedRows(),
                  order()));
    } catch (RuntimeException | LinkageError e) {
      LoggerFactory.getLogger(StokerBatch.class)
          .warn("stoker: the Stoker page cannot list the " + "read of {}: {}", input, e.toString());
    }
  }

  /**
   * How far the epoch's order is from a random permutation ({@link PlanQuality}), or what it is;
   * null for token rows, whose order is their documents'.
   */
  private String order() {
    if (config.tokens() != null) {
      return null;
    }
    LoaderOptions options = config.loader().options();
    if (!options.shuffle()) {
      return "storage order";
    }
    PlanQuality.Measure measure =
        PlanQuality.of(plan, config.windowRows(), true, options.seed(), config.epoch());
    return measure == null ? null : measure.describe();
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new StokerColumnarReaderFactory(config);
  }
}
