package dev.stoker.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ranks as executor JVMs of their own on local-cluster, each worker offering one fake GPU: the
 * task's GPU reaches the rank's device, the ranks' all-reduce crosses JVMs, and a stage failing on
 * one executor is retried as a whole with the same batches, leaving no shard on any executor's
 * disk.
 */
@Timeout(240)
class LocalClusterRunTest {
  private static SparkSession spark;
  private static Dataset<Row> input;

  @BeforeAll
  static void start() {
    spark = SparkClusters.cluster(2, true);
    input = TestFrames.frame(spark, 8, 17, 30, 2);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static StokerSpark declared() {
    return StokerSpark.on(input)
        .tensor("x", DType.FLOAT32, 2, 4)
        .scalar("id", DType.INT64)
        .options(
            LoaderOptions.builder()
                .batchSize(5)
                .dropLast(true)
                .shuffle(true)
                .seed(11)
                .numWorkers(1)
                .build())
        .worldSize(2)
        .devices(FakeGpuDevice.FACTORY);
  }

  @Test
  void shouldOpenEachRanksDeviceForTheGpuSparkGaveItsTask() {
    TrainingResult<String> run =
        declared()
            .run(
                (rank, loader) -> {
                  List<String> pids = rank.allGather(Long.toString(ProcessHandle.current().pid()));
                  return rank.rank()
                      + " "
                      + rank.gpuAddress().orElse("none")
                      + " "
                      + rank.device().name()
                      + " "
                      + loader.device().name()
                      + " "
                      + new HashSet<>(pids).size();
                });
    assertThat(run.results())
        .containsExactly("0 0 fake-gpu:0 fake-gpu:0 2", "1 0 fake-gpu:0 fake-gpu:0 2");
    assertThat(run.report().ranks())
        .extracting(RankReport::gpuAddress, RankReport::device)
        .containsOnly(org.assertj.core.groups.Tuple.tuple("0", "fake-gpu:0"));
    assertThat(run.report().rank(0).executorId()).isNotEqualTo(run.report().rank(1).executorId());
  }

  @Test
  void shouldStreamAParquetInputIntoEachExecutorsRankWithItsDeviceAndCache(@TempDir Path dir) {
    String parquet = dir.resolve("frame.parquet").toString();
    input.write().option("parquet.block.size", "2048").parquet(parquet);

    TrainingResult<RankIds> run =
        StokerSpark.on(spark.read().parquet(parquet))
            .tensor("x", DType.FLOAT32, 2, 4)
            .scalar("id", DType.INT64)
            .options(
                LoaderOptions.builder()
                    .batchSize(5)
                    .dropLast(true)
                    .shuffle(true)
                    .seed(11)
                    .numWorkers(1)
                    .build())
            .option("cache", "disk")
            .worldSize(2)
            .devices(FakeGpuDevice.FACTORY)
            .run(RankIds.reading(2));

    assertThat(run.report().streamed()).isTrue();
    assertThat(run.report().rank(0).executorId()).isNotEqualTo(run.report().rank(1).executorId());
    assertThat(run.report().ranks()).extracting(RankReport::device).containsOnly("fake-gpu:0");
    assertThat(run.results()).allMatch(RankIds::consistent);
    java.util.Set<Long> seen = new HashSet<>();
    for (RankIds rank : run.results()) {
      assertThat(new HashSet<>(rank.epochs().get(1)))
          .as("rank %d: epoch 1 from the cache", rank.rank())
          .isEqualTo(new HashSet<>(rank.epochs().get(0)));
      for (long id : rank.epochs().get(0)) {
        assertThat(seen.add(id)).as("id %d on one rank only", id).isTrue();
      }
    }
    assertThat(seen).hasSize((int) (49 - run.report().droppedRows()));
  }

  @Test
  void shouldAllReduceAcrossExecutorJvmsToTheSameBits() {
    TrainingResult<String> run =
        declared()
            .run(
                (rank, loader) -> {
                  float[] values = new float[50_000];
                  int sum = 0;
                  for (int step = 0; step < 20; step++) {
                    java.util.Arrays.fill(values, (rank.rank() + 1) * 0.3f + step);
                    rank.allReduceMean(values);
                    sum = 31 * sum + java.util.Arrays.hashCode(values);
                  }
                  long[] pids = rank.allReduceSum(new long[] {ProcessHandle.current().pid()});
                  return sum
                      + " "
                      + values[0]
                      + " "
                      + (pids[0] != 2 * ProcessHandle.current().pid());
                });
    float last = (0.3f + 19 + 0.6f + 19) / 2f;
    assertThat(run.results())
        .hasSize(2)
        .containsOnly(run.results().get(0))
        .allSatisfy(line -> assertThat(line).endsWith(" " + last + " true"));
  }

  @Test
  void shouldRetryTheStageAcrossExecutorsWithTheSameBatchesAndNoShardLeft() {
    TrainingResult<RankIds> undisturbed = declared().run(RankIds.reading(2));
    TrainingResult<RankIds> retried =
        declared()
            .run(
                (rank, loader) -> {
                  RankIds ids = RankIds.read(rank.rank(), loader, 2);
                  if (rank.rank() == 0 && rank.stageAttempt() == 0) {
                    throw new IllegalStateException("rank 0 fails its first attempt");
                  }
                  return ids;
                });
    assertThat(retried.results()).isEqualTo(undisturbed.results());
    assertThat(retried.results()).allMatch(RankIds::consistent);
    assertThat(retried.report().ranks()).extracting(RankReport::stageAttempt).containsExactly(1, 1);
    assertThat(retried.report().batchesPerEpoch()).isEqualTo(4);
    for (RankReport rank : retried.report().ranks()) {
      Path folder = Path.of(rank.shardFolder());
      assertThat(folder).doesNotExist();
      assertThat(folder.getParent()).isEmptyDirectory();
    }
  }

  @Test
  void shouldRemoveTheShardOfAnExecutorKilledOutrightWhenTheStageRuns(@TempDir Path notes)
      throws Exception {
    String noteFile = notes.resolve("killed-shard").toString();
    TrainingResult<Integer> run =
        declared()
            .run(
                (rank, loader) -> {
                  if (rank.rank() == 0 && rank.stageAttempt() == 0) {
                    java.nio.file.Files.writeString(Path.of(noteFile), rank.shardFolder());
                    // SIGKILL, as a preemption or the kernel's OOM killer: no shutdown hook runs
                    new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid()))
                        .start()
                        .waitFor();
                    Thread.sleep(60_000);
                  }
                  return rank.stageAttempt();
                });
    assertThat(run.results()).allMatch(attempt -> attempt > 0);
    Path killed = Path.of(java.nio.file.Files.readString(Path.of(noteFile)));
    assertThat(killed.getFileName().toString()).startsWith("shard-");
    assertThat(killed).as("the killed executor's shard").doesNotExist();
  }
}
