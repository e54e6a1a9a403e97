package dev.stoker.tools.spark;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;

/**
 * The straightforward way a user turns a DataFrame into batches: a {@code mapPartitions} over
 * {@code Row} objects, copying each row's {@code array<float>} (a list of boxed floats) and its
 * label into the float and int arrays of a batch of {@code batchSize} rows; full batches only, as
 * with dropLast. Yields one record per partition: rows batched, first and last moment (ns), and a
 * checksum that keeps the work from being optimized away.
 */
final class RowBatches implements FlatMapFunction<Iterator<Row>, long[]> {
  private static final long serialVersionUID = 1L;

  private final int batchSize;
  private final int width;

  RowBatches(int batchSize, int width) {
    this.batchSize = batchSize;
    this.width = width;
  }

  @Override
  public Iterator<long[]> call(Iterator<Row> rows) {
    long start = System.nanoTime();
    float[] images = new float[batchSize * width];
    int[] labels = new int[batchSize];
    int filled = 0;
    long batched = 0;
    double checksum = 0;
    while (rows.hasNext()) {
      Row row = rows.next();
      List<Float> image = row.getList(row.fieldIndex("image"));
      for (int e = 0; e < width; e++) {
        images[filled * width + e] = image.get(e);
      }
      labels[filled] = row.getInt(row.fieldIndex("label"));
      if (++filled == batchSize) {
        checksum += images[0] + labels[0];
        batched += batchSize;
        filled = 0;
      }
    }
    return List.of(new long[] {batched, start, System.nanoTime(), (long) checksum}).iterator();
  }
}
