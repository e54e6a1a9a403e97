package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
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
 * Ranks as executor JVMs of their own on local-cluster, streaming a format("stoker") read: a rank
 * that fails after its ranks committed at step 40 costs only the steps since; the retried stage
 * starts every rank at step 40, and the rows consumed over both attempts are the epoch's rows once.
 */
@Timeout(240)
class LocalClusterResumeTest {
  private static final int ROWS = 480;
  private static final int BATCH = 4;

  @TempDir static Path dir;
  private static SparkSession spark;
  private static String parquet;

  @BeforeAll
  static void start() {
    spark = SparkClusters.cluster(2, false);
    parquet = dir.resolve("rows.parquet").toString();
    spark
        .range(0, ROWS, 1, 3)
        .selectExpr("id", "transform(sequence(0, 7), i -> cast(id * 1000 + i as float)) as x")
        .write()
        .option("parquet.block.size", "2048")
        .parquet(parquet);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static StokerSpark run() {
    Dataset<Row> read =
        spark
            .read()
            .format("stoker")
            .option("batchSize", BATCH)
            .option("worldSize", 2)
            .option("shuffle", true)
            .option("seed", 5)
            .option("dropLast", true)
            .option("shuffleBuffer", 16)
            .load(parquet);
    return StokerSpark.on(read).tensor("x", DType.FLOAT32, 8).scalar("id", DType.INT64);
  }

  /** The ids of the rows of one batch. */
  static List<Long> ids(Batch batch, DataLoader loader) {
    int id = loader.layout().schema().indexOf("id");
    List<Long> ids = new ArrayList<>();
    for (int r = 0; r < batch.size(); r++) {
      ids.add(batch.getLong(id, r, 0));
    }
    return ids;
  }

  @Test
  void shouldResumeARetriedStageAtTheLastStepEveryRankCommitted() {
    TrainingResult<List<Long>> whole =
        run()
            .run(
                (rank, loader) -> {
                  List<Long> ids = new ArrayList<>();
                  for (Batch batch : loader.epoch(0)) {
                    ids.addAll(ids(batch, loader));
                  }
                  return ids;
                });
    int steps = whole.result(0).size() / BATCH;

    TrainingResult<String> retried =
        run()
            .run(
                (rank, loader) -> {
                  LoaderState from = rank.resumedFrom().orElse(null);
                  int epoch = from == null ? 0 : from.epoch();
                  long step = from == null ? 0 : from.consumedRows() / (BATCH * rank.worldSize());
                  List<Long> ids = new ArrayList<>();
                  for (Batch batch : loader.epoch(epoch)) {
                    ids.addAll(ids(batch, loader));
                    step++;
                    if (step == 40) {
                      rank.commit(); // here the rank's checkpoint would be saved
                      // ranks move in step, as a training step's all-reduce keeps them: no rank
                      // fails
                      // before every rank has committed
                      rank.barrier();
                    }
                    if (step == 45 && rank.rank() == 1 && rank.stageAttempt() == 0) {
                      throw new IllegalStateException(
                          "rank 1 fails at step 45 of its first attempt");
                    }
                  }
                  return rank.stageAttempt()
                      + " "
                      + (from == null ? "-" : from.describe())
                      + " "
                      + ids;
                });

    assertThat(retried.report().ranks()).extracting(RankReport::stageAttempt).containsExactly(1, 1);
    Set<Long> consumed = new HashSet<>();
    long delivered = 0;
    for (int r = 0; r < 2; r++) {
      List<Long> all = whole.result(r);
      String prefix = "1 epoch 0, 320 row(s) consumed (40 batch(es) x 4 x 2 rank(s)) ";
      assertThat(retried.result(r))
          .startsWith(prefix)
          .isEqualTo(prefix + all.subList(40 * BATCH, all.size()));
      consumed.addAll(all); // committed steps of attempt 0, then attempt 1's
      delivered += all.size();
    }
    assertThat(consumed).hasSize((int) delivered);
    assertThat(delivered + whole.report().droppedRows()).isEqualTo(ROWS);
    assertThat(steps).isGreaterThan(45);
    assertThat(retried.lastCommitted()).get().extracting(LoaderState::consumedRows).isEqualTo(320L);
  }
}
