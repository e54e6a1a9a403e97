package dev.stoker.spark.run.balance;

import dev.stoker.spark.cluster.ScalaSeqs;
import dev.stoker.spark.rows.InputRdd;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.Dependency;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.reflect.ClassTag$;

/** Rows per partition of an input, counted by one Spark job, and where each partition starts. */
public final class RowCounts {
  private static final Function2<Integer, Iterator<Object>, Iterator<long[]>> COUNT =
      (partition, input) -> {
        long n = 0;
        while (input.hasNext()) {
          Object next = input.next();
          n += next instanceof ColumnarBatch batch ? batch.numRows() : 1;
        }
        return List.of(new long[] {partition, n}).iterator();
      };

  private RowCounts() {}

  /** Counts the rows of every partition of {@code input} (rows or columnar batches): one job. */
  @SuppressWarnings("unchecked")
  public static long[] count(RDD<?> input) {
    long[] counts = new long[input.getNumPartitions()];
    List<long[]> found =
        JavaRDD.fromRDD((RDD<Object>) input, ClassTag$.MODULE$.AnyRef())
            .mapPartitionsWithIndex(COUNT, false)
            .collect();
    for (long[] partition : found) {
      counts[(int) partition[0]] = partition[1];
    }
    return counts;
  }

  /**
   * Counts the rows of every partition of {@code rows}, the RDD that {@link InputRdd#of} made of
   * {@code input}, cheaply where it can: when no shuffle feeds those partitions they come from the
   * input's sources alone (files split by size, say), whatever columns are read, so {@code input}
   * with no column is counted instead, which a columnar source such as Parquet does without
   * decoding any value. One job either way.
   */
  public static long[] count(Dataset<Row> input, RDD<?> rows) {
    if (shuffleFree(rows)) {
      RDD<?> pruned = InputRdd.of(input.select());
      if (pruned.getNumPartitions() == rows.getNumPartitions()) {
        return count(pruned);
      }
    }
    return count(rows);
  }

  private static boolean shuffleFree(RDD<?> rdd) {
    for (Object parent : ScalaSeqs.call(rdd, "dependencies")) {
      if (parent instanceof ShuffleDependency<?, ?, ?>
          || !shuffleFree(((Dependency<?>) parent).rdd())) {
        return false;
      }
    }
    return true;
  }

  /** The global number of each partition's first row: the counts of the partitions before it. */
  public static long[] offsets(long[] counts) {
    long[] offsets = new long[counts.length];
    long sum = 0;
    for (int p = 0; p < counts.length; p++) {
      offsets[p] = sum;
      sum += counts[p];
    }
    return offsets;
  }
}
