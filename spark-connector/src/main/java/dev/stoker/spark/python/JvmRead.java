package dev.stoker.spark.python;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The Python benchmark's yardstick: a {@code format("stoker")} read consumed in the JVM, each
 * rank's columnar batches taken from the scan as a JVM training loop would take them, the first
 * value of every column of every batch touched. What Python users get is measured against it.
 */
public final class JvmRead {
  private JvmRead() {}

  /**
   * Reads {@code read} once; returns {rows, batches} over all ranks and the slowest rank's
   * nanoseconds from asking for its first batch to its last.
   */
  public static long[] consume(Dataset<Row> read) {
    BatchScanExec scan = scan(read.queryExecution().executedPlan());
    List<long[]> ranks = scan.executeColumnar().toJavaRDD()
        .mapPartitions(JvmRead::consume).collect();
    long[] total = new long[3];
    for (long[] rank : ranks) {
      total[0] += rank[0];
      total[1] += rank[1];
      total[2] = Math.max(total[2], rank[3]);
    }
    return total;
  }

  private static Iterator<long[]> consume(Iterator<ColumnarBatch> batches) {
    long rows = 0;
    long count = 0;
    long touched = 0;
    long start = System.nanoTime();
    while (batches.hasNext()) {
      ColumnarBatch batch = batches.next();
      for (int c = 0; c < batch.numCols(); c++) {
        touched += batch.column(c).isNullAt(0) ? 0 : 1;
      }
      rows += batch.numRows();
      count++;
    }
    return List.of(new long[] {rows, count, touched, System.nanoTime() - start}).iterator();
  }

  private static BatchScanExec scan(SparkPlan plan) {
    while (!(plan instanceof BatchScanExec)) {
      if (plan instanceof WholeStageCodegenExec codegen) {
        plan = codegen.child();
      } else if (plan instanceof InputAdapter adapter) {
        plan = adapter.child();
      } else if (plan instanceof ColumnarToRowExec transition) {
        plan = transition.child();
      } else {
        throw new IllegalArgumentException("expected a format(\"stoker\") read, got:\n" + plan);
      }
    }
    return (BatchScanExec) plan;
  }
}
