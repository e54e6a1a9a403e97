package dev.stoker.spark.source;

import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;

/** Partition {@code rank} of a scan: that rank's rows, as runs of row groups in reading order. */
record RankPartition(int rank, long rows, List<ReadRun> runs) implements InputPartition {}
