package dev.stoker.spark.source;

import dev.stoker.spark.parquet.ReadConfig;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Makes a {@link RankReader} per rank partition, on the executors; columnar only. */
final class StokerColumnarReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  private final ReadConfig config;

  StokerColumnarReaderFactory(ReadConfig config) {
    this.config = config;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new RankReader((RankPartition) partition, config);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException("format(\"stoker\") reads columnar batches only");
  }
}
