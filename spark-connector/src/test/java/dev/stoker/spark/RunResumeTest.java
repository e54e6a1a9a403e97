package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.metrics.ShuffleQuality;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.DataFrameReader;
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
 * run's. A run over rows that are not Parquet files cannot commit. With {@code epochOrder=global}
 * each epoch is planned again over the whole input inside the one stage (rows move between ranks),
 * as a fresh run per epoch would plan it, and a resume on another world size keeps that order.
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
    return run(worldSize, resumeFrom, 0);
  }

  private static StokerSpark run(int worldSize, String resumeFrom, int epoch) {
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
    if (epoch != 0) {
      reader = reader.option("epoch", epoch);
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

  /** Each rank's ids of each of {@code epochs} epochs from {@code first}, in delivery order. */
  private static RankFunction<List<List<Long>>> epochs(int epochs) {
    return (rank, loader) -> {
      int first = rank.resumedFrom().map(LoaderState::epoch).orElse(0);
      List<List<Long>> all = new ArrayList<>();
      for (int epoch = first; epoch < first + epochs; epoch++) {
        List<Long> ids = new ArrayList<>();
        for (Batch batch : loader.epoch(epoch)) {
          assertThat(batch.size()).isEqualTo(BATCH);
          ids.addAll(LocalClusterResumeTest.ids(batch, loader));
        }
        all.add(ids);
      }
      return all;
    };
  }

  /** Each rank's ids of epoch {@code epoch} of {@code run}, as sets, each id once on one rank. */
  private static List<Set<Long>> ranksOf(List<List<List<Long>>> run, int epoch, int rows) {
    List<Set<Long>> ranks = new ArrayList<>();
    Set<Long> all = new HashSet<>();
    for (List<List<Long>> rank : run) {
      Set<Long> ids = new HashSet<>(rank.get(epoch));
      assertThat(ids)
          .as("epoch %d: each row once on a rank", epoch)
          .hasSize(rank.get(epoch).size());
      all.addAll(ids);
      ranks.add(ids);
    }
    assertThat(all).as("epoch %d: no row on two ranks", epoch).hasSize(rows);
    return ranks;
  }

  @Test
  void shouldPlanEveryEpochAgainOverTheWholeInputInOneStageWithTheGlobalOrder() {
    TrainingResult<List<List<Long>>> global =
        run(3, null).option("epochOrder", "global").run(epochs(3));
    int rows = ROWS - ROWS % (3 * BATCH);
    List<Set<Long>> first = ranksOf(global.results(), 0, rows);
    List<Set<Long>> second = ranksOf(global.results(), 1, rows);
    List<Set<Long>> third = ranksOf(global.results(), 2, rows);
    assertThat(second).as("rows moved between ranks").isNotEqualTo(first);
    assertThat(third).isNotEqualTo(second);
    assertThat(global.report().rank(0).shardBytes()).as("no shard cache").isZero();
    // the report measures each epoch's order from its plan: the gaps of the rows delivered
    assertThat(global.report().epochOrders()).hasSize(3);
    for (int epoch = 0; epoch < 3; epoch++) {
      long[][] delivered = new long[3][];
      int[][] labels = new int[3][];
      for (int rank = 0; rank < 3; rank++) {
        delivered[rank] =
            global.results().get(rank).get(epoch).stream().mapToLong(Long::longValue).toArray();
        labels[rank] = new int[delivered[rank].length];
      }
      assertThat(global.report().epochOrders().get(epoch))
          .startsWith(
              String.format(
                  Locale.ROOT,
                  "epoch %d: gap entropy %.2f bits (a random permutation: ",
                  epoch,
                  ShuffleQuality.of(delivered, labels, 1).gapEntropyBits()));
    }
    assertThat(global.report().toString()).contains("  order, epoch 2: gap entropy ");
    // epoch 2 of the one stage is what a fresh run planned in epoch 2's order reads
    TrainingResult<List<List<Long>>> fresh = run(3, null, 2).run(epochs(1));
    assertThat(ranksOf(fresh.results(), 0, rows)).isEqualTo(third);
    // and the rank order keeps each rank's rows
    TrainingResult<List<List<Long>>> kept = run(3, null).run(epochs(2));
    assertThat(ranksOf(kept.results(), 1, rows)).isEqualTo(ranksOf(kept.results(), 0, rows));
  }

  @Test
  void shouldResumeTheGlobalOrderMidEpochOnAnotherWorldSize() {
    TrainingResult<List<Long>> stopped =
        run(3, null).option("epochOrder", "global").run(committedIn1(7));
    LoaderState state = stopped.lastCommitted().orElseThrow();
    assertThat(state.epoch()).isEqualTo(1);
    assertThat(state.orderEpoch()).as("epoch 1 in its own order").isEqualTo(1);

    TrainingResult<List<List<Long>>> restarted =
        run(2, state.toString()).option("epochOrder", "global").run(epochs(2));
    List<Long> epoch1 = new ArrayList<>();
    stopped.results().forEach(epoch1::addAll);
    restarted.results().forEach(rank -> epoch1.addAll(rank.get(0)));
    assertThat(new HashSet<>(epoch1)).as("epoch 1: no row twice").hasSize(epoch1.size());
    assertThat(ROWS - epoch1.size()).as("dropped").isLessThan(3 * BATCH);
    List<Set<Long>> next = ranksOf(restarted.results(), 1, ROWS - ROWS % (2 * BATCH));
    // epoch 2 on 2 ranks is a fresh 2-rank plan of epoch 2's order
    TrainingResult<List<List<Long>>> fresh = run(2, null, 2).run(epochs(1));
    assertThat(ranksOf(fresh.results(), 0, ROWS - ROWS % (2 * BATCH))).isEqualTo(next);

    // a state of a run whose epochs kept one order is refused, naming the way
    TrainingResult<List<Long>> ranked = run(3, null).run(committedIn1(2));
    String rankState = ranked.lastCommitted().orElseThrow().toString();
    assertThatThrownBy(
            () -> run(2, rankState).option("epochOrder", "global").run((rank, loader) -> 0))
        .hasMessageContaining("epochOrder=global: resumeFrom holds epoch 1")
        .hasMessageContaining("expected: epochOrder=rank");
    assertThatThrownBy(() -> run(2, null, 1).option("epochOrder", "global").run((r, l) -> 0))
        .hasMessageContaining("epochOrder=global with the read's epoch=1");
  }

  private static final int GLOBAL = 24;

  /** A read of {@code GLOBAL}-row global batches in 6 streams of 10-row windows. */
  private static DataFrameReader globalRead(int worldSize) {
    return spark
        .read()
        .format("stoker")
        .option("globalBatchSize", GLOBAL)
        .option("orderStreams", 6)
        .option("worldSize", worldSize)
        .option("shuffle", true)
        .option("seed", 9)
        .option("shuffleBuffer", 60);
  }

  private static StokerSpark globalRun(int worldSize, String resumeFrom) {
    DataFrameReader reader = globalRead(worldSize);
    if (resumeFrom != null) {
      reader = reader.option("resumeFrom", resumeFrom);
    }
    return StokerSpark.on(reader.load(parquet))
        .tensor("x", DType.FLOAT32, 8)
        .scalar("id", DType.INT64);
  }

  /** Each rank's batches of each of {@code epochs} epochs from {@code first}: their ids. */
  private static RankFunction<List<List<List<Long>>>> batchesOf(int first, int epochs) {
    return (rank, loader) -> {
      List<List<List<Long>>> all = new ArrayList<>();
      for (int epoch = first; epoch < first + epochs; epoch++) {
        List<List<Long>> batches = new ArrayList<>();
        for (Batch batch : loader.epoch(epoch)) {
          batches.add(LocalClusterResumeTest.ids(batch, loader));
        }
        all.add(batches);
      }
      return all;
    };
  }

  /** Epoch {@code epoch}'s global batches: batch b of every rank, in rank order, for each b. */
  private static List<List<Long>> globalBatches(List<List<List<List<Long>>>> ranks, int epoch) {
    List<List<Long>> global = new ArrayList<>();
    int batches = ranks.get(0).get(epoch).size();
    for (int b = 0; b < batches; b++) {
      List<Long> step = new ArrayList<>();
      for (List<List<List<Long>>> rank : ranks) {
        assertThat(rank.get(epoch)).as("every rank's batches").hasSize(batches);
        step.addAll(rank.get(epoch).get(b));
      }
      assertThat(step).hasSize(GLOBAL);
      global.add(step);
    }
    return global;
  }

  /** The global batches a {@code format("stoker")} read of epoch {@code epoch} gives. */
  private static List<List<Long>> readBatches(int worldSize, int epoch) {
    List<List<Row>> partitions =
        globalRead(worldSize)
            .option("epoch", epoch)
            .load(parquet)
            .select("id")
            .toJavaRDD()
            .glom()
            .collect();
    List<List<List<List<Long>>>> ranks = new ArrayList<>();
    int perRank = GLOBAL / worldSize;
    for (List<Row> rows : partitions) {
      List<List<Long>> batches = new ArrayList<>();
      for (int from = 0; from + perRank <= rows.size(); from += perRank) {
        batches.add(
            rows.subList(from, from + perRank).stream().map(row -> row.getLong(0)).toList());
      }
      ranks.add(List.of(batches));
    }
    return globalBatches(ranks, 0);
  }

  @Test
  void shouldTrainOnTheSameGlobalBatchesOnAnyWorldSizeEveryEpochAndAcrossAResume() {
    List<List<List<List<Long>>>> one = globalRun(1, null).run(batchesOf(0, 2)).results();
    List<List<Long>> epoch0 = globalBatches(one, 0);
    List<List<Long>> epoch1 = globalBatches(one, 1);
    assertThat(epoch0).hasSize(ROWS / GLOBAL).isNotEqualTo(epoch1);
    Set<Long> distinct = new HashSet<>();
    epoch1.forEach(distinct::addAll);
    assertThat(distinct).as("epoch 1: every row once").hasSize(ROWS);
    for (int worldSize : new int[] {2, 3}) {
      TrainingResult<List<List<List<Long>>>> run = globalRun(worldSize, null).run(batchesOf(0, 2));
      assertThat(globalBatches(run.results(), 0))
          .as("epoch 0 on %d ranks", worldSize)
          .isEqualTo(epoch0);
      assertThat(globalBatches(run.results(), 1))
          .as("epoch 1 on %d ranks", worldSize)
          .isEqualTo(epoch1);
      assertThat(run.report().rank(0).shardBytes()).as("no shard cache").isZero();
      assertThat(run.report().epochOrders())
          .as("each epoch's order measured from its plan")
          .hasSize(2)
          .allMatch(line -> line.contains(": gap entropy "));
    }
    // each epoch of the run is what a read of that epoch gives
    assertThat(readBatches(2, 1)).isEqualTo(epoch1);

    // stopped after 9 steps of epoch 1 on 3 ranks, resumed on 2: the same global batches
    TrainingResult<List<Long>> stopped = globalRun(3, null).run(committedIn1(9));
    LoaderState state = stopped.lastCommitted().orElseThrow();
    assertThat(state.orderStreams()).isEqualTo(6);
    assertThat(state.describe()).startsWith("epoch 1, 216 row(s) consumed");
    TrainingResult<List<List<List<Long>>>> resumed =
        globalRun(2, state.toString()).run(batchesOf(1, 1));
    assertThat(globalBatches(resumed.results(), 0)).isEqualTo(epoch1.subList(9, epoch1.size()));

    // what a global order cannot go with, named
    assertThatThrownBy(
            () ->
                globalRun(2, null)
                    .options(LoaderOptions.builder().batchSize(5).build())
                    .run((r, l) -> 0))
        .hasMessageContaining("batchSize");
    assertThatThrownBy(() -> globalRun(2, null).option("cache", "disk").run((r, l) -> 0))
        .hasMessageContaining("globalBatchSize=24 with cache=disk")
        .hasMessageContaining("batchSize per rank and epochOrder=rank");
  }

  /**
   * Epoch 0 skipped, then {@code steps} batches of epoch 1, a commit after the last, and the rank
   * stops there as a job that saved its checkpoint: returns those batches' ids.
   */
  private static RankFunction<List<Long>> committedIn1(int steps) {
    return (rank, loader) -> {
      for (Batch batch : loader.epoch(0)) {
        batch.close();
      }
      List<Long> ids = new ArrayList<>();
      int step = 0;
      for (Batch batch : loader.epoch(1)) {
        ids.addAll(LocalClusterResumeTest.ids(batch, loader));
        if (++step == steps) {
          rank.commit();
          break;
        }
      }
      return ids;
    };
  }
}
