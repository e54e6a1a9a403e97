package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run stopped mid-epoch with 3 ranks, restarted from the driver's state with 2: the rest of the
 * epoch on 2 ranks, every row once apart from the reported tail, the next epoch as a fresh 2-rank
 * run's. A run over rows that are not Parquet files cannot commit.
 */
@Timeout(240)
class RunResumeTest {
  private static final int ROWS = 600;
  private static final int BATCH = 8;

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String parquet;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(3);
    parquet = dir.resolve("rows.parquet").toString();
    spark
        .range(0, ROWS, 1, 4)
        .selectExpr("id", "transform(sequence(0, 7), i -> cast(id * 1000 + i as float)) as x")
        .write()
        .option("parquet.block.size", "4096")
        .parquet(parquet);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static StokerSpark run(int worldSize, String resumeFrom) {
    var reader =
        spark
            .read()
            .format("stoker")
            .option("batchSize", BATCH)
            .option("worldSize", worldSize)
            .option("shuffle", true)
            .option("seed", 9)
            .option("dropLast", true)
            .option("shuffleBuffer", 20);
    if (resumeFrom != null) {
      reader = reader.option("resumeFrom", resumeFrom);
    }
    Dataset<Row> read = reader.load(parquet);
    return StokerSpark.on(read).tensor("x", DType.FLOAT32, 8).scalar("id", DType.INT64);
  }

  @Test
  void shouldRestartAStoppedRunFromTheDriversStateOnFewerRanks() {
    TrainingResult<List<Long>> stopped =
        run(3, null)
            .run(
                (rank, loader) -> {
                  List<Long> ids = new ArrayList<>();
                  int step = 0;
                  for (Batch batch : loader.epoch(0)) {
                    ids.addAll(LocalClusterResumeTest.ids(batch, loader));
                    if (++step == 11) {
                      rank.commit();
                      break; // the job stops here, its checkpoint saved
                    }
                  }
                  return ids;
                });
    LoaderState state = stopped.lastCommitted().orElseThrow();
    assertThat(state.describe())
        .isEqualTo("epoch 0, 264 row(s) consumed (11 batch(es) x 8 x 3 " + "rank(s))");

    TrainingResult<List<List<Long>>> restarted =
        run(2, state.toString())
            .run(
                (rank, loader) -> {
                  int first = rank.resumedFrom().orElseThrow().epoch();
                  List<List<Long>> epochs = new ArrayList<>();
                  for (int epoch = first; epoch < first + 2; epoch++) {
                    List<Long> ids = new ArrayList<>();
                    for (Batch batch : loader.epoch(epoch)) {
                      ids.addAll(LocalClusterResumeTest.ids(batch, loader));
                    }
                    epochs.add(ids);
                  }
                  return epochs;
                });

    List<Long> epoch0 = new ArrayList<>();
    stopped.results().forEach(epoch0::addAll);
    Set<Long> next = new HashSet<>();
    for (List<List<Long>> rank : restarted.results()) {
      epoch0.addAll(rank.get(0));
      next.addAll(rank.get(1));
    }
    assertThat(new HashSet<>(epoch0)).as("no row twice").hasSize(epoch0.size());
    assertThat(ROWS - epoch0.size()).as("dropped").isLessThan(3 * BATCH);
    // the 336 rows left make 21 full steps of 2 x 8: the resumed epoch drops none, where a fresh
    // one on 2 ranks would drop 600 % 16 = 8
    assertThat(restarted.report().droppedRows())
        .as("the rows the resumed epoch leaves out")
        .isEqualTo(ROWS - epoch0.size())
        .isZero();
    assertThat(next).as("the next epoch on 2 ranks").hasSize(ROWS - ROWS % (2 * BATCH));
    assertThat(restarted.lastCommitted()).contains(state);
    assertThat(Thread.getAllStackTraces().keySet())
        .as("the driver's commit servers stopped")
        .noneMatch(thread -> thread.isAlive() && thread.getName().startsWith("stoker-commits"));
  }

  @Test
  void shouldRefuseACommitOverRowsThatAreNotParquetFiles() {
    Dataset<Row> rows =
        spark
            .range(0, 100, 1, 2)
            .selectExpr("id", "transform(sequence(0, 7), i -> cast(id as float)) as x");
    TrainingResult<String> run =
        StokerSpark.on(rows)
            .tensor("x", DType.FLOAT32, 8)
            .scalar("id", DType.INT64)
            .option("batchSize", "4")
            .worldSize(2)
            .run(
                (rank, loader) -> {
                  try {
                    rank.commit();
                    return "committed";
                  } catch (UnsupportedOperationException e) {
                    return e.getMessage();
                  }
                });
    assertThat(run.results())
        .allSatisfy(
            message -> assertThat(message).contains("commit() needs a run over Parquet files"));
    assertThat(run.lastCommitted()).isEmpty();
  }

  @Test
  void shouldRefuseAStateOfOtherFiles() {
    String state =
        LoaderState.startOf(
                9, true, 0, 2, BATCH, true, 20, dev.stoker.loader.state.InputFingerprint.ofRows(5))
            .plusBatches(1)
            .toString();
    assertThatThrownBy(() -> run(2, state).run((rank, loader) -> 0))
        .hasMessageContaining("the input changed since the state was taken: 'rows' removed");
  }
}
