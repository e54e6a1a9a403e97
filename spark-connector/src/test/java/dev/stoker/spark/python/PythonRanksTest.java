package dev.stoker.spark.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.spark.parquet.OpenCounts;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The handle rows' checks on the driver and in the task, as the Python path meets them. */
@Timeout(120)
class PythonRanksTest {
  @TempDir static Path dir;
  private static SparkSession spark;
  private static String parquet;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2);
    parquet = dir.resolve("rows.parquet").toString();
    spark
        .range(0, 64, 1, 2)
        .selectExpr("id", "array(cast(id as float)) as x")
        .write()
        .parquet(parquet);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static Dataset<Row> read(int worldSize) {
    return spark
        .read()
        .format("stoker")
        .option("batchSize", 4)
        .option("worldSize", worldSize)
        .option("dropLast", true)
        .load(parquet);
  }

  /** A barrier task's function: the ranks of its handle rows. */
  private static final class RankOf
      extends scala.runtime.AbstractFunction1<
          scala.collection.Iterator<Row>, scala.collection.Iterator<Integer>>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public scala.collection.Iterator<Integer> apply(scala.collection.Iterator<Row> rows) {
      List<Integer> ranks = new java.util.ArrayList<>();
      while (rows.hasNext()) {
        ranks.add(rows.next().getInt(0));
      }
      return scala.collection.JavaConverters.asScalaIterator(ranks.iterator());
    }
  }

  /** At once, not after Spark's ten minutes of barrier retries. */
  @Test
  void shouldRefuseMoreRanksThanTaskSlotsBeforeAnyTask() {
    assertThatThrownBy(() -> PythonRanks.of(read(3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "worldSize 3: a barrier stage of 3 tasks needs 3 task slots at "
                + "once, and the cluster has 2");
  }

  @Test
  void shouldRefuseToStartARankInAStageThatIsNotABarrierOne() {
    Dataset<Row> handles = PythonRanks.of(read(2));
    assertThatThrownBy(handles::collectAsList)
        .hasMessageContaining("which is not a barrier " + "stage")
        .hasMessageContaining("barrier=True");
    assertThat(OpenCounts.open(OpenCounts.Kind.PYTHON_RANKS)).as("no rank left open").isZero();
  }

  @Test
  void shouldStartEveryRankInABarrierStage() {
    JavaRDD<Row> rows = PythonRanks.of(read(2)).javaRDD();
    List<Integer> ranks =
        rows.rdd()
            .barrier()
            .mapPartitions(
                new RankOf(), false, scala.reflect.ClassTag$.MODULE$.apply(Integer.class))
            .toJavaRDD()
            .collect();
    assertThat(ranks).containsExactlyInAnyOrder(0, 1);
  }
}
