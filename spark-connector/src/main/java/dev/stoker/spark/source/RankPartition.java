package dev.stoker.spark.source;

import dev.stoker.spark.parquet.RankRuns;
import org.apache.spark.sql.connector.read.InputPartition;

/** Partition {@code rank} of a scan: that rank's rows, as runs of row groups in reading order. */
record RankPartition(RankRuns runs) implements InputPartition {
  int rank() {
    return runs.rank();
  }

  long rows() {
    return runs.rows();
  }
}
