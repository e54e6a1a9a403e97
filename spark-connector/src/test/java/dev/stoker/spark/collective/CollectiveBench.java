package dev.stoker.spark.collective;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;

/**
 * Time per call of the ranks' all-reduce against Spark's barrier allGather, on local[2]: run with
 * the test class path, {@code java ... CollectiveBench [floats] [calls]}. A figure to read, not a
 * test.
 */
public final class CollectiveBench {
  private CollectiveBench() {}

  public static void main(String[] args) {
    int floats = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    SparkSession spark = SparkClusters.local(2);
    try {
      TrainingResult<String> run =
          StokerSpark.on(spark.range(0, 8).selectExpr("id"))
              .scalar("id", DType.INT64)
              .options(LoaderOptions.builder().batchSize(2).build())
              .worldSize(2)
              .run(
                  (rank, loader) -> {
                    float[] values = new float[floats];
                    rank.allReduceMean(values); // connects
                    for (int i = 0; i < 20; i++) {
                      rank.allReduceMean(values);
                    }
                    long start = System.nanoTime();
                    for (int i = 0; i < calls; i++) {
                      rank.allReduceMean(values);
                    }
                    double reduce = (System.nanoTime() - start) / 1e3 / calls;
                    ByteBuffer bytes = ByteBuffer.allocate(floats * Float.BYTES);
                    bytes.asFloatBuffer().put(values);
                    start = System.nanoTime();
                    for (int i = 0; i < 3; i++) {
                      rank.allGather(bytes.array());
                    }
                    double gather = (System.nanoTime() - start) / 1e3 / 3;
                    start = System.nanoTime();
                    for (int i = 0; i < 3; i++) {
                      rank.allGather("r" + rank.rank());
                    }
                    double small = (System.nanoTime() - start) / 1e3 / 3;
                    return String.format(
                        Locale.ROOT,
                        "rank %d: allReduceMean of %d floats: %.0f us a "
                            + "call (%d calls); allGather of the same bytes: %.0f us a call; of 2 chars: "
                            + "%.0f us",
                        rank.rank(),
                        floats,
                        reduce,
                        calls,
                        gather,
                        small);
                  });
      run.results().forEach(System.out::println);
    } finally {
      spark.stop();
    }
  }
}
