package dev.stoker.examples.runtime;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TrainingResult;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * A user's application that knows Stoker only by its coordinate: submitted in a jar of its own with
 * {@code --packages}, it writes a Parquet table, reads it with {@code format("stoker")} and trains
 * over the read on two ranks, each rank summing its batches' ids. Prints one line the test reads:
 * {@link #RESULT} with the rows of the read, the batches per rank and the sum of every id.
 */
public final class RuntimeJarJob {
  static final String RESULT = "runtime-jar job: ";
  static final int ROWS = 1000;
  static final int BATCH = 32;

  private RuntimeJarJob() {}

  /** {@code args[0]}: the folder to write the table in. */
  public static void main(String[] args) {
    SparkSession spark = SparkSession.builder().appName("stoker-runtime-jar").getOrCreate();
    try {
      String table = args[0];
      spark
          .range(0, ROWS)
          .selectExpr("id", "array(cast(id AS float), cast(id * 2 AS float)) AS x")
          .repartition(4)
          .write()
          .parquet(table);
      Dataset<Row> read =
          spark
              .read()
              .format("stoker")
              .option("batchSize", BATCH)
              .option("worldSize", 2)
              .option("shuffle", true)
              .option("seed", 7)
              .option("dropLast", true)
              .load(table);
      long rows = read.count();
      long idSum = read.agg(functions.sum("id")).first().getLong(0);
      TrainingResult<long[]> result =
          StokerSpark.on(read)
              .scalar("id", DType.INT64)
              .tensor("x", DType.FLOAT32, 2)
              .worldSize(2)
              .run(
                  (rank, loader) -> {
                    long batches = 0;
                    double sum = 0;
                    for (Batch batch : loader) {
                      try (batch) {
                        for (int row = 0; row < batch.size(); row++) {
                          sum += batch.getLong(0, row, 0);
                        }
                        batches++;
                      }
                    }
                    double[] total = {sum};
                    rank.allReduceSum(total);
                    return new long[] {batches, (long) total[0]};
                  });
      System.out.println(
          RESULT
              + rows
              + " rows read, batches per rank "
              + result.result(0)[0]
              + " and "
              + result.result(1)[0]
              + ", id sum "
              + result.result(0)[1]
              + " (read: "
              + idSum
              + ")");
    } finally {
      spark.stop();
    }
  }
}
