package dev.stoker.spark.source;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;

/**
 * Finds the file scan under an executed plan that is a read and at most a choice of its columns:
 * what the runner plans per rank and the Python bridge hands to its ranks.
 */
public final class ScanPlans {
  private ScanPlans() {}

  /**
   * The scan ({@link BatchScanExec} or {@link FileSourceScanExec}) under {@code plan}, if nothing
   * but a choice of its columns and Spark's code generation and row conversion lie above it; else
   * null.
   */
  public static SparkPlan scanOf(SparkPlan plan) {
    if (plan instanceof WholeStageCodegenExec codegen) {
      plan = codegen.child();
    }
    if (plan instanceof ProjectExec project) {
      scala.collection.Iterator<?> expressions = project.projectList().iterator();
      while (expressions.hasNext()) {
        if (!(expressions.next() instanceof Attribute)) {
          return null;
        }
      }
      plan = project.child();
    }
    if (plan instanceof InputAdapter adapter) {
      plan = adapter.child();
    }
    if (plan instanceof ColumnarToRowExec transition) {
      plan = transition.child();
    }
    if (plan instanceof InputAdapter adapter) {
      plan = adapter.child();
    }
    return plan instanceof BatchScanExec || plan instanceof FileSourceScanExec ? plan : null;
  }

  /** The {@code format("stoker")} scan under {@code plan} as {@link #scanOf} finds it, or null. */
  public static StokerScan stokerScan(SparkPlan plan) {
    return scanOf(plan) instanceof BatchScanExec batch && batch.scan() instanceof StokerScan stoker
        ? stoker
        : null;
  }
}
