package dev.stoker.examples.cluster;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.StokerSpark;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;

/**
 * The job of the link-cut case, submitted to the cluster in a jar of its own: two ranks that
 * all-reduce gradient-sized arrays in a loop until their collective fails. Each rank prints {@link
 * #REDUCING} to its executor's log once its first all-reduce went through, so the test takes a link
 * down only while both ranks are inside the loop, whatever the machine's speed. The loop is
 * bounded: a rank that has not failed after {@link #MAX_SECONDS} returns, so the job ends and the
 * test fails rather than waits.
 */
public final class LinkCutJob {
  /** What each rank prints once it reduces, before its rank: "link-cut job: reducing as rank 1". */
  static final String REDUCING = "link-cut job: reducing as rank ";

  static final int MAX_SECONDS = 120;

  /** Enough values that the ranks' arrays go around the ring (over 512 KiB at 2 ranks). */
  private static final int FLOATS = 1 << 18;

  private LinkCutJob() {}

  public static void main(String[] args) {
    SparkSession spark = SparkSession.builder().appName("stoker-link-cut").getOrCreate();
    try {
      StokerSpark.on(spark.range(0, 8).selectExpr("id"))
          .scalar("id", DType.INT64)
          .options(LoaderOptions.builder().batchSize(2).build())
          .worldSize(2)
          .run(
              (rank, loader) -> {
                float[] values = new float[FLOATS];
                rank.allReduceSum(values);
                System.err.println(REDUCING + rank.rank());
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_SECONDS);
                long calls = 1;
                while (System.nanoTime() < end) {
                  rank.allReduceSum(values);
                  calls++;
                }
                return calls;
              });
    } finally {
      spark.stop();
    }
  }
}
