package dev.stoker.spark.balance;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.rdd.RDD;
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
    List<long[]> found = JavaRDD.fromRDD((RDD<Object>) input, ClassTag$.MODULE$.AnyRef())
        .mapPartitionsWithIndex(COUNT, false).collect();
    for (long[] partition : found) {
      counts[(int) partition[0]] = partition[1];
    }
    return counts;
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
