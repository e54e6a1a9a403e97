package dev.stoker.tools.spark;

import dev.stoker.tools.spark.SourceBench.Config;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * What a user writes without Stoker to get equal, full batches per rank: count the rows, {@code
 * spark.read.parquet(...).repartition(worldSize)}, and in each partition copy rows into fixed-size
 * arrays (labels, images), stopping at the same number of batches on every rank. Rows are read as
 * Spark's internal rows, the fastest way a Spark user has; the batches are touched as the Stoker
 * read touches its own.
 */
final class BaselineRead {
  private BaselineRead() {}

  static BatchCount read(SparkSession spark, String data, Config config) {
    Dataset<Row> df = spark.read().parquet(data);
    long rows = df.count();
    long perRank = rows / ((long) config.ranks() * config.batchSize()) * config.batchSize();
    int batchSize = config.batchSize();
    int elements = config.elements();
    List<long[]> ranks =
        df.repartition(config.ranks())
            .select("label", "image")
            .queryExecution()
            .toRdd()
            .toJavaRDD()
            .mapPartitions(it -> batch(it, perRank, batchSize, elements))
            .collect();
    return BatchCount.sum(ranks);
  }

  private static Iterator<long[]> batch(
      Iterator<InternalRow> rows, long perRank, int batchSize, int elements) {
    int[] labels = new int[batchSize];
    float[] images = new float[batchSize * elements];
    int filled = 0;
    long taken = 0;
    long batches = 0;
    double touched = 0;
    while (taken < perRank && rows.hasNext()) {
      InternalRow row = rows.next();
      labels[filled] = row.getInt(0);
      System.arraycopy(row.getArray(1).toFloatArray(), 0, images, filled * elements, elements);
      filled++;
      taken++;
      if (filled == batchSize) {
        for (int r = 0; r < batchSize; r++) {
          touched += labels[r] + images[r * elements];
        }
        batches++;
        filled = 0;
      }
    }
    return List.of(new long[] {taken, batches, (long) touched}).iterator();
  }
}
