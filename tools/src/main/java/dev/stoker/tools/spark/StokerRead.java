package dev.stoker.tools.spark;

import dev.stoker.tools.spark.SourceBench.Config;
import java.io.Serializable;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.Iterator;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

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
    // The scan's RDD yields columnar batches (Spark types it as rows).
    @SuppressWarnings("unchecked")
    RDD<ColumnarBatch> batches = (RDD<ColumnarBatch>) (RDD<?>) scan.inputRDD();
    long[][] ranks =
        (long[][])
            batches
                .sparkContext()
                .runJob(
                    batches,
                    new Consume(schema.fieldIndex("label"), schema.fieldIndex("image")),
                    ClassTag$.MODULE$.apply(long[].class));
    return BatchCount.sum(Arrays.asList(ranks));
  }

  /**
   * A rank's consumer, a class of its own run by {@code SparkContext.runJob} on the scan's own RDD:
   * Spark's closure cleaner reads the bytecode of the class around every lambda it is given (the
   * consumer's, and those of {@code mapPartitions}, {@code collect} and {@code runJob}'s wrappers,
   * in the RDD and context classes) at every job, and at a job per epoch its parser kept the JIT
   * compiling in the measured rounds. A named function is not a closure to it.
   */
  private static final class Consume
      extends AbstractFunction2<TaskContext, Iterator<ColumnarBatch>, long[]>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int label;
    private final int image;

    Consume(int label, int image) {
      this.label = label;
      this.image = image;
    }

    @Override
    public long[] apply(TaskContext context, Iterator<ColumnarBatch> batches) {
      return consume(batches, label, image);
    }
  }

  private static long[] consume(Iterator<ColumnarBatch> batches, int label, int image) {
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
    return new long[] {rows, count, (long) touched};
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
