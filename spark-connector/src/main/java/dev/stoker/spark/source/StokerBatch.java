package dev.stoker.spark.source;

import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.parquet.ReadRun;
import java.util.List;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

/** A planned scan as Spark runs it: one partition per rank, in rank order. */
final class StokerBatch implements Batch {
  private final ReadPlan plan;
  private final ReadConfig config;

  StokerBatch(ReadPlan plan, ReadConfig config) {
    this.plan = plan;
    this.config = config;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    List<List<ReadRun>> ranks = plan.ranks();
    InputPartition[] partitions = new InputPartition[ranks.size()];
    for (int rank = 0; rank < partitions.length; rank++) {
      partitions[rank] = new RankPartition(plan.rank(rank));
    }
    return partitions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new StokerColumnarReaderFactory(config);
  }
}
