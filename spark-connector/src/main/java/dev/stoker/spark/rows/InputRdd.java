package dev.stoker.spark.rows;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;

/**
 * The partitions of a DataFrame as Stoker reads them: where the plan's last step only turns a
 * columnar scan into rows (e.g. a Parquet file read with the vectorized reader), the scan's
 * columnar batches, which are copied a run of rows at a time and skip Spark's row assembly;
 * otherwise its internal rows. Either way without {@code Row} objects, and with the same partitions
 * the DataFrame has.
 */
public final class InputRdd {
  private InputRdd() {}

  /** The RDD of columnar batches or internal rows; {@link RowCopier#cursor} reads either. */
  public static RDD<?> of(Dataset<Row> input) {
    SparkPlan columnar = columnarChild(input);
    return columnar != null ? columnar.executeColumnar() : input.queryExecution().toRdd();
  }

  /** Whether {@link #of} reads {@code input} as columnar batches. */
  public static boolean columnar(Dataset<Row> input) {
    return columnarChild(input) != null;
  }

  private static SparkPlan columnarChild(Dataset<Row> input) {
    SparkPlan plan = input.queryExecution().executedPlan();
    if (plan instanceof WholeStageCodegenExec codegen) {
      plan = codegen.child();
    }
    return plan instanceof ColumnarToRowExec transition && transition.child().supportsColumnar()
        ? transition.child()
        : null;
  }
}
