package dev.stoker.tools.spark;

import dev.stoker.tools.spark.SourceBench.Config;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The read through {@code format("stoker")}: each rank's columnar batches, as a training runner
 * takes them from the scan, touched as a consumer would (the label and first value of each row).
 * Page checksums are verified unless the system property {@code stoker.bench.verifyChecksums} is
 * {@code false}, to measure what verifying costs.
 */
final class StokerRead {
  /** The system property that sets the read's {@code verifyChecksums} (default true). */
  static final String VERIFY_CHECKSUMS = "stoker.bench.verifyChecksums";

  /**
   * When a batch of a read first reached its consumer ({@code System.nanoTime()}), or 0: set by the
   * first batch after {@link #markStart}; one JVM on {@code local[N]}.
   */
  private static final AtomicLong FIRST_BATCH = new AtomicLong();

  /** Forgets the last read's first batch. */
  static void markStart() {
    FIRST_BATCH.set(0);
  }

  /** When the first batch since {@link #markStart} reached its consumer, or 0 if none did. */
  static long firstBatchNanos() {
    return FIRST_BATCH.get();
  }

  private StokerRead() {}

  static BatchCount read(SparkSession spark, String data, Config config, int epoch) {
    Dataset<Row> df =
        spark
            .read()
            .format("stoker")
            .option("batchSize", config.batchSize())
            .option("worldSize", config.ranks())
            .option("shuffle", true)
            .option("seed", 1)
            .option("epoch", epoch)
            .option("dropLast", true)
            .option("verifyChecksums", System.getProperty(VERIFY_CHECKSUMS, "true"))
            .load(data);
    return consume(df);
  }

  /**
   * Each rank's columnar batches of {@code df}, a {@code format("stoker")} read with columns {@code
   * image} (an array of floats) and {@code label} (int), touched as a consumer would.
   */
  static BatchCount consume(Dataset<Row> df) {
    BatchScanExec scan = scan(df.queryExecution().executedPlan());
    StructType schema = scan.scan().readSchema();
    int label = schema.fieldIndex("label");
    int image = schema.fieldIndex("image");
    List<long[]> ranks =
        scan.executeColumnar().toJavaRDD().mapPartitions(new Consume(label, image)).collect();
    return BatchCount.sum(ranks);
  }

  /**
   * A rank's consumer, a class of its own rather than a lambda: Spark's closure cleaner then has no
   * bytecode to read for it at every epoch's job.
   */
  private static final class Consume implements FlatMapFunction<Iterator<ColumnarBatch>, long[]> {
    private static final long serialVersionUID = 1L;
    private final int label;
    private final int image;

    Consume(int label, int image) {
      this.label = label;
      this.image = image;
    }

    @Override
    public Iterator<long[]> call(Iterator<ColumnarBatch> batches) {
      return consume(batches, label, image);
    }
  }

  private static Iterator<long[]> consume(Iterator<ColumnarBatch> batches, int label, int image) {
    long rows = 0;
    long count = 0;
    double touched = 0;
    while (batches.hasNext()) {
      ColumnarBatch batch = batches.next();
      FIRST_BATCH.compareAndSet(0, System.nanoTime());
      ColumnVector labels = batch.column(label);
      ColumnVector images = batch.column(image);
      for (int r = 0; r < batch.numRows(); r++) {
        touched += labels.getInt(r) + images.getArray(r).getFloat(0);
      }
      rows += batch.numRows();
      count++;
    }
    return List.of(new long[] {rows, count, (long) touched}).iterator();
  }

  static BatchScanExec scan(SparkPlan plan) {
    if (plan instanceof BatchScanExec scan) {
      return scan;
    }
    scala.collection.Seq<SparkPlan> children = plan.children();
    for (int i = 0; i < children.size(); i++) {
      BatchScanExec found = scan(children.apply(i));
      if (found != null) {
        return found;
      }
    }
    return null;
  }
}
