package dev.stoker.tools.spark.python;

import dev.stoker.loader.Batch;
import dev.stoker.loader.BatchIterator;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.parquet.RankLoader;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadPlan;
import dev.stoker.spark.source.ScanPlans;
import dev.stoker.spark.source.StokerScan;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The Python benchmark's yardsticks: a {@code format("stoker")} read consumed in the JVM, each
 * rank's columnar batches taken from the scan as a JVM training loop would take them, the first
 * value of every column of every batch touched ({@link #consume}); and several epochs of it in one
 * task per rank, the rank's loader kept from one to the next, as a training run's epochs in one
 * stage ({@link #consumeInStage}). What Python users get is measured against them.
 */
public final class JvmRead {
  private JvmRead() {}

  /**
   * Reads {@code read} once; returns {rows, batches} over all ranks and the slowest rank's
   * nanoseconds from asking for its first batch to its last.
   */
  public static long[] consume(Dataset<Row> read) {
    BatchScanExec scan = scan(read.queryExecution().executedPlan());
    return total(scan.executeColumnar().toJavaRDD().mapPartitions(JvmRead::consume).collect());
  }

  /** Each rank's {rows, batches, touched, nanoseconds} as {rows, batches, slowest rank's ns}. */
  private static long[] total(List<long[]> ranks) {
    long[] total = new long[3];
    for (long[] rank : ranks) {
      total[0] += rank[0];
      total[1] += rank[1];
      total[2] = Math.max(total[2], rank[3]);
    }
    return total;
  }

  /**
   * Reads {@code epochs} epochs of {@code read} in one task per rank, from the read's epoch on,
   * over the same rows each epoch as {@code stoker.torch} does; returns {rows, batches} over all
   * ranks and epochs and the slowest rank's nanoseconds from building its loader to its last batch.
   */
  public static long[] consumeInStage(Dataset<Row> read, int epochs) {
    if (epochs < 1) {
      throw new IllegalArgumentException("epochs: " + epochs + " (expected: at least 1)");
    }
    StokerScan stoker = (StokerScan) scan(read.queryExecution().executedPlan()).scan();
    ReadPlan plan = stoker.plan();
    List<RankRuns> ranks = new ArrayList<>();
    for (int r = 0; r < plan.ranks().size(); r++) {
      ranks.add(plan.rank(r));
    }
    return total(
        JavaSparkContext.fromSparkContext(read.sparkSession().sparkContext())
            .parallelize(ranks, ranks.size())
            .mapPartitions(new EpochsOfRank(stoker.config(), epochs))
            .collect());
  }

  /** In rank r's task: its loader over its runs, {@code epochs} epochs, each batch touched. */
  private static final class EpochsOfRank implements FlatMapFunction<Iterator<RankRuns>, long[]> {
    private static final long serialVersionUID = 1L;

    private final ReadConfig config;
    private final int epochs;

    EpochsOfRank(ReadConfig config, int epochs) {
      this.config = config;
      this.epochs = epochs;
    }

    @Override
    public Iterator<long[]> call(Iterator<RankRuns> given) {
      RankRuns runs = given.next();
      LoaderOptions options = config.loader().options();
      long rows = 0;
      long count = 0;
      long touched = 0;
      long start = System.nanoTime();
      try (RankLoader rank =
          RankLoader.builder(config, runs)
              .options(options.toBuilder().name("stoker-jvm-read-rank" + runs.rank()).build())
              .build()) {
        for (int e = 0; e < epochs; e++) {
          try (BatchIterator batches = rank.loader().epoch(config.epoch() + e).iterator()) {
            while (batches.hasNext()) {
              Batch batch = batches.next();
              touched += batch.buffer().get(0);
              rows += batch.size();
              count++;
            }
          }
        }
      }
      return List.of(new long[] {rows, count, touched, System.nanoTime() - start}).iterator();
    }
  }

  private static Iterator<long[]> consume(Iterator<ColumnarBatch> batches) {
    long rows = 0;
    long count = 0;
    long touched = 0;
    long start = System.nanoTime();
    while (batches.hasNext()) {
      ColumnarBatch batch = batches.next();
      for (int c = 0; c < batch.numCols(); c++) {
        touched += batch.column(c).isNullAt(0) ? 0 : 1;
      }
      rows += batch.numRows();
      count++;
    }
    return List.of(new long[] {rows, count, touched, System.nanoTime() - start}).iterator();
  }

  private static BatchScanExec scan(SparkPlan plan) {
    if (ScanPlans.scanOf(plan) instanceof BatchScanExec scan) {
      return scan;
    }
    throw new IllegalArgumentException("expected a format(\"stoker\") read, got:\n" + plan);
  }
}
