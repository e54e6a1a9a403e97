package dev.stoker.spark.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.Deduplicate;
import org.apache.spark.sql.catalyst.plans.logical.Distinct;
import org.apache.spark.sql.catalyst.plans.logical.Except;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.Generate;
import org.apache.spark.sql.catalyst.plans.logical.GlobalLimit;
import org.apache.spark.sql.catalyst.plans.logical.Intersect;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LocalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Repartition;
import org.apache.spark.sql.catalyst.plans.logical.RepartitionByExpression;
import org.apache.spark.sql.catalyst.plans.logical.Sample;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;

/**
 * Refuses, when a query is planned, what Spark never hands a source to refuse: a filter it cannot
 * translate (a UDF, a random condition, arithmetic outside ANSI mode), a filter over a cached read,
 * a subquery, a join, a {@code distinct}, a sort or a repartition above a {@code format("stoker")}
 * read. Each would drop or move rows of batches already planned per rank, leaving the ranks with
 * unequal batches, which is what hangs distributed training; the filters Spark does hand the source
 * are refused by its scan builder alike.
 *
 * <p>A source cannot add a rule through the session's extensions, which are fixed when the session
 * is built: the source adds this one to the session's extra optimizations when a read is made
 * ({@link #register}), before any query over it is optimized. Aggregates over a read ({@code
 * count}, {@code sum}) and a {@code limit} for a look stay allowed: their rows are no batches.
 */
final class EqualBatchesCheck extends Rule<LogicalPlan> {
  private static final Object LOCK = new Object();

  /** Adds the check to {@code spark}'s optimizations, once. */
  static void register(SparkSession spark) {
    synchronized (LOCK) {
      List<Rule<LogicalPlan>> rules = new ArrayList<>();
      scala.collection.Iterator<Rule<LogicalPlan>> present =
          spark.experimental().extraOptimizations().iterator();
      while (present.hasNext()) {
        Rule<LogicalPlan> rule = present.next();
        if (rule instanceof EqualBatchesCheck) {
          return;
        }
        rules.add(rule);
      }
      rules.add(new EqualBatchesCheck());
      spark
          .experimental()
          .extraOptimizations_$eq(scala.collection.JavaConverters.asScalaBuffer(rules).toSeq());
    }
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    check(plan);
    return plan;
  }

  private static void check(LogicalPlan plan) {
    String what = rowChanging(plan);
    if (what != null) {
      scala.collection.Iterator<LogicalPlan> children = plan.children().iterator();
      while (children.hasNext()) {
        String read = stokerReadUnder(children.next());
        if (read != null) {
          throw new UnsupportedOperationException(
              String.format(
                  Locale.ROOT,
                  "format(\"stoker\") "
                      + "read of %s: %s over it would drop or move rows of the batches planned for each "
                      + "rank, leaving the ranks with unequal, partial batches, and Spark does not hand "
                      + "it to the source (expected: no filter, join, distinct, sort or repartition over "
                      + "a stoker read; apply it before writing the data, or read the files with "
                      + "spark.read().parquet(...), apply it there and hand the result to "
                      + "StokerSpark.on(...), which rebalances the rows across the ranks)",
                  read,
                  what));
        }
      }
    }
    scala.collection.Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      check(children.next());
    }
  }

  /** What {@code plan} does to the rows of a read under it that breaks batches, or null. */
  private static String rowChanging(LogicalPlan plan) {
    if (plan instanceof Filter filter) {
      return "a filter (" + filter.condition().sql() + ")";
    }
    if (plan instanceof Join join) {
      return "a join (" + join.joinType().sql() + "; a subquery over the read becomes one)";
    }
    if (plan instanceof Distinct || plan instanceof Deduplicate) {
      return "a distinct";
    }
    if (plan instanceof Aggregate aggregate
        && !aggregate.groupingExpressions().isEmpty()
        && aggregate.aggregateExpressions().size() == aggregate.groupingExpressions().size()) {
      return "a distinct";
    }
    if (plan instanceof Sample) {
      return "a sample";
    }
    if (plan instanceof Intersect || plan instanceof Except) {
      return "a set operation (" + plan.nodeName() + ")";
    }
    if (plan instanceof Generate) {
      return "a generator (" + plan.nodeName() + ")";
    }
    if (plan instanceof Sort sort && sort.global()) {
      return "a sort";
    }
    if (plan instanceof Repartition || plan instanceof RepartitionByExpression) {
      return "a repartition";
    }
    return null;
  }

  /**
   * The input of the stoker read whose rows reach {@code plan}'s output unchanged in number, or
   * null: looks through everything but an aggregate or a limit, whose rows are no batches.
   */
  private static String stokerReadUnder(LogicalPlan plan) {
    if (plan instanceof DataSourceV2ScanRelation scan && scan.scan() instanceof StokerScan stoker) {
      return stoker.read().dataset().input();
    }
    if (plan instanceof DataSourceV2Relation relation
        && relation.table() instanceof StokerTable table) {
      return table.name();
    }
    if (plan instanceof InMemoryRelation cached) {
      String read = stokerScanIn(cached.cacheBuilder().cachedPlan());
      return read == null ? null : read + " (cached)";
    }
    if (plan instanceof Aggregate || plan instanceof GlobalLimit || plan instanceof LocalLimit) {
      return null;
    }
    scala.collection.Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      String read = stokerReadUnder(children.next());
      if (read != null) {
        return read;
      }
    }
    return null;
  }

  private static String stokerScanIn(SparkPlan plan) {
    if (plan instanceof BatchScanExec batch && batch.scan() instanceof StokerScan stoker) {
      return stoker.read().dataset().input();
    }
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      return stokerScanIn(adaptive.inputPlan());
    }
    scala.collection.Iterator<SparkPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      String read = stokerScanIn(children.next());
      if (read != null) {
        return read;
      }
    }
    return null;
  }
}
