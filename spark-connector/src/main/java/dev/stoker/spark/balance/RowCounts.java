package dev.stoker.spark.balance;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import scala.reflect.ClassTag$;

/** Rows per partition of an input, counted by one Spark job, and where each partition starts. */
public final class RowCounts {
  private static final Function2<Integer, Iterator<InternalRow>, Iterator<long[]>> COUNT =
      (partition, rows) -> {
        long n = 0;
        while (rows.hasNext()) {
          rows.next();
          n++;
        }
        return List.of(new long[] {partition, n}).iterator();
      };

  private RowCounts() {}

  /** Counts the rows of every partition of {@code rows}: one job. */
  public static long[] count(RDD<InternalRow> rows) {
    long[] counts = new long[rows.getNumPartitions()];
    List<long[]> found = JavaRDD.fromRDD(rows, ClassTag$.MODULE$.apply(InternalRow.class))
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
