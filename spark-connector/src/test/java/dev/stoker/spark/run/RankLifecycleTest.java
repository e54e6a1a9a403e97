package dev.stoker.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.spark.Leaks;
import dev.stoker.spark.RankIds;
import dev.stoker.spark.RankProgress;
import dev.stoker.spark.RankReport;
import dev.stoker.spark.StokerSpark;
import dev.stoker.spark.TestFrames;
import dev.stoker.spark.TrainingResult;
import dev.stoker.spark.testing.SparkClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rank's life on local[2], where its function runs in this JVM: its context, its shard's place
 * and removal, progress seen from the driver, the stage failing and retried as a whole, and a rank
 * killed mid-epoch leaving nothing behind.
 */
@Timeout(120)
class RankLifecycleTest {
  /** What rank functions saw, for the test to read: they run in this JVM. */
  static final Queue<String> SEEN = new ConcurrentLinkedQueue<>();

  static final Queue<RankProgress> PROGRESS = new ConcurrentLinkedQueue<>();
  static final AtomicInteger KILLED_AT = new AtomicInteger(-1);
  static final AtomicReference<String> KILL_ERROR = new AtomicReference<>();
  private static SparkSession spark;
  private static Dataset<Row> input;

  @BeforeAll
  static void start() {
    spark =
        SparkClusters.local(
            2,
            Map.of(
                "spark.executor.heartbeatInterval",
                "200ms",
                "spark.stage.maxConsecutiveAttempts",
                "2"));
    input = TestFrames.frame(spark, 4, 40, 40);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @BeforeEach
  void clear() {
    SEEN.clear();
    PROGRESS.clear();
    KILLED_AT.set(-1);
    KILL_ERROR.set(null);
  }

  @AfterEach
  void nothingLeft() throws InterruptedException {
    Leaks.assertNoRankThreads();
    Leaks.assertNoShards();
  }

  private static StokerSpark declared() {
    return declared(2);
  }

  private static StokerSpark declared(int workers) {
    return StokerSpark.on(input)
        .tensor("x", DType.FLOAT32, 4)
        .scalar("id", DType.INT64)
        .options(
            LoaderOptions.builder()
                .batchSize(4)
                .dropLast(true)
                .shuffle(true)
                .seed(3)
                .numWorkers(workers)
                .persistentWorkers(true)
                .build())
        .worldSize(2);
  }

  @Test
  void shouldGiveEachRankItsPlaceAndAWayToExchangeValues() {
    TrainingResult<String> run =
        declared()
            .devices(
                gpu -> {
                  throw new AssertionError("no GPU on local[n]: the factory is not asked");
                })
            .run(
                (rank, loader) -> {
                  List<String> names = rank.allGather("r" + rank.rank());
                  List<byte[]> bytes = rank.allGather(new byte[] {(byte) rank.rank(), -1});
                  rank.barrier();
                  return rank.rank()
                      + "/"
                      + rank.worldSize()
                      + " "
                      + rank.device().name()
                      + " "
                      + rank.gpuAddress().orElse("no-gpu")
                      + " "
                      + names
                      + " "
                      + bytes.get(1)[0]
                      + bytes.get(1)[1]
                      + " "
                      + rank.shardRows()
                      + " "
                      + loader.batchesPerEpoch()
                      + " interrupted="
                      + Thread.currentThread().isInterrupted();
                });
    assertThat(run.results())
        .as("the exchanges leave no interrupt behind")
        .containsExactly(
            "0/2 cpu no-gpu [r0, r1] 1-1 40 10 interrupted=false",
            "1/2 cpu no-gpu [r0, r1] 1-1 40 10 interrupted=false");
    assertThat(run.report().rapids().active()).isFalse();
    assertThat(run.report().rank(1).device()).isEqualTo("cpu");
    assertThat(run.report().rank(1).gpuAddress()).isNull();
  }

  @Test
  void shouldCacheTheShardInSparksLocalDirectoriesUntilTheRankEnds() {
    TrainingResult<RankIds> run =
        declared()
            .run(
                (rank, loader) -> {
                  Path folder = Path.of(rank.shardFolder());
                  SEEN.add(
                      folder + " " + Files.isDirectory(folder) + " " + Files.list(folder).count());
                  return RankIds.read(rank.rank(), loader, 3);
                });
    List<Path> localDirs =
        java.util.Arrays.stream(SparkEnv.get().blockManager().diskBlockManager().localDirs())
            .map(f -> f.toPath().resolve("stoker"))
            .toList();
    assertThat(SEEN).hasSize(2).allSatisfy(line -> assertThat(line).endsWith(" true 3"));
    for (RankReport rank : run.report().ranks()) {
      assertThat(Path.of(rank.shardFolder()).getParent()).isIn(localDirs);
      assertThat(Path.of(rank.shardFolder())).doesNotExist();
      assertThat(rank.shardBytes()).isEqualTo(40 * 24);
      assertThat(rank.epochs()).isEqualTo(3);
      assertThat(rank.batches()).isEqualTo(30);
      assertThat(rank.verdict()).isNotNull();
    }
  }

  @Test
  void shouldShowEachRanksProgressOnTheDriverWhileItRuns() {
    TrainingResult<Boolean> run =
        declared()
            .option("progressInterval", "50ms")
            .onProgress(PROGRESS::add)
            .run(
                (rank, loader) -> {
                  for (Batch batch : loader.epoch(0)) {
                    batch.close();
                  }
                  long deadline = System.nanoTime() + 20_000_000_000L;
                  while (System.nanoTime() < deadline) {
                    if (PROGRESS.stream()
                        .anyMatch(
                            p ->
                                p.rank() == rank.rank()
                                    && !p.finished()
                                    && p.batchesDelivered() == 10
                                    && p.rowsLoaded() == 40)) {
                      return true;
                    }
                    Thread.sleep(20);
                  }
                  return false;
                });
    assertThat(run.results()).containsExactly(true, true);
    assertThat(PROGRESS)
        .filteredOn(RankProgress::finished)
        .extracting(RankProgress::rank, RankProgress::rowsLoaded, RankProgress::batchesDelivered)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(0, 40L, 10L),
            org.assertj.core.groups.Tuple.tuple(1, 40L, 10L));
  }

  @Test
  void shouldRetryTheStageAsAWholeAndDeliverTheSameBatches() {
    TrainingResult<RankIds> undisturbed = declared().run(RankIds.reading(2));
    TrainingResult<RankIds> retried =
        declared()
            .run(
                (rank, loader) -> {
                  RankIds ids = RankIds.read(rank.rank(), loader, 2);
                  if (rank.rank() == 1 && rank.stageAttempt() == 0) {
                    throw new IllegalStateException("rank 1 fails its first attempt");
                  }
                  return ids;
                });
    assertThat(retried.results()).isEqualTo(undisturbed.results());
    assertThat(retried.report().ranks()).extracting(RankReport::stageAttempt).containsExactly(1, 1);
    assertThat(undisturbed.report().ranks())
        .extracting(RankReport::stageAttempt)
        .containsExactly(0, 0);
  }

  @Test
  void shouldCloseTheLoaderOfARankKilledMidEpoch() {
    TrainingResult<Integer> run =
        declared(1)
            .run(
                (rank, loader) -> {
                  if (rank.stageAttempt() > 0) {
                    return rank.stageAttempt();
                  }
                  if (rank.rank() == 1) {
                    Thread.sleep(300);
                    throw new IllegalStateException("rank 1 fails while rank 0 is mid-epoch");
                  }
                  int batches = 0;
                  try {
                    for (int epoch = 0; epoch < 100; epoch++) {
                      for (Batch batch : loader.epoch(epoch)) {
                        batches++;
                        Thread.sleep(10);
                      }
                    }
                  } catch (RuntimeException | InterruptedException e) {
                    KILL_ERROR.set(e.getClass().getSimpleName());
                    throw e;
                  } finally {
                    KILLED_AT.set(batches);
                  }
                  return -1;
                });
    assertThat(run.results()).containsExactly(1, 1);
    assertThat(KILLED_AT.get()).as("batches rank 0 read before it was killed").isBetween(1, 999);
    // the kill interrupts the task's thread (a rank stage always does): the sleep in the step ends
    // at once, or the loader's next() is cancelled as its loader is closed
    assertThat(KILL_ERROR.get()).isIn("InterruptedException", "CancellationException");
  }

  @Test
  void shouldEndARankKilledWhileItWaitsInAnExchange() {
    TrainingResult<String> run =
        declared(1)
            .run(
                (rank, loader) -> {
                  if (rank.stageAttempt() == 0 && rank.rank() == 1) {
                    throw new IllegalStateException(
                        "rank 1 fails; rank 0 waits for it in allGather");
                  }
                  return rank.allGather("attempt " + rank.stageAttempt()).toString();
                });
    assertThat(run.results()).containsExactly("[attempt 1, attempt 1]", "[attempt 1, attempt 1]");
  }

  @Test
  void shouldFailWithTheRanksErrorOnceSparkStopsRetrying() {
    assertThatThrownBy(
            () ->
                declared()
                    .run(
                        (rank, loader) -> {
                          if (rank.rank() == 1) {
                            throw new IllegalStateException("boom");
                          }
                          return 0;
                        }))
        .hasMessageContaining(
            "rank 1 of 2 (stage attempt 1): failed: " + "java.lang.IllegalStateException: boom");
  }

  @Test
  void shouldFailTheRankWhoseShardFileIsTruncatedWhileItReadsAndKeepTheJvm() {
    // Reading on the rank's own thread: the JVM may report the fault of a compiled read some
    // steps after it, and a loader's worker thread may then be anywhere in its hand-over.
    StokerSpark reading =
        StokerSpark.on(input)
            .tensor("x", DType.FLOAT32, 4)
            .scalar("id", DType.INT64)
            .options(
                LoaderOptions.builder()
                    .batchSize(4)
                    .dropLast(true)
                    .shuffle(true)
                    .seed(3)
                    .numWorkers(0)
                    .build())
            .worldSize(2);
    assertThatThrownBy(
            () ->
                reading.run(
                    (rank, loader) -> {
                      RankIds.read(rank.rank(), loader, 1);
                      if (rank.rank() == 0) {
                        try (java.nio.channels.FileChannel file =
                            java.nio.channels.FileChannel.open(
                                Path.of(rank.shardFolder(), "0-x.col"),
                                java.nio.file.StandardOpenOption.WRITE)) {
                          file.truncate(0);
                        }
                      }
                      return RankIds.read(rank.rank(), loader, 20);
                    }))
        .hasMessageContaining(
            "rank 0 of 2 (stage attempt 1): reading its shard failed: "
                + "dev.stoker.spark.shard.ShardChangedException: shard file ")
        .hasMessageContaining(
            "0-x.col changed while mapped: 0 bytes, 640 bytes expected "
                + "(expected: the shard's files left alone while its rank runs; keep other processes "
                + "and cleanup jobs out of shardDir, or set shardDir to a folder of its own)")
        .hasMessageNotContaining("InternalError");
  }

  @Test
  void shouldFailTheRankWhoseShardFileIsTruncatedEvenWhereBadSamplesAreSkipped() {
    StokerSpark skipping =
        StokerSpark.on(input)
            .tensor("x", DType.FLOAT32, 4)
            .scalar("id", DType.INT64)
            .options(
                LoaderOptions.builder()
                    .batchSize(4)
                    .dropLast(true)
                    .numWorkers(0)
                    .onBadSample(dev.stoker.loader.OnBadSample.SKIP)
                    .build())
            .worldSize(2);
    assertThatThrownBy(
            () ->
                skipping.run(
                    (rank, loader) -> {
                      RankIds.read(rank.rank(), loader, 1);
                      if (rank.rank() == 0) {
                        try (java.nio.channels.FileChannel file =
                            java.nio.channels.FileChannel.open(
                                Path.of(rank.shardFolder(), "0-x.col"),
                                java.nio.file.StandardOpenOption.WRITE)) {
                          file.truncate(0);
                        }
                      }
                      try {
                        RankIds.read(rank.rank(), loader, 3);
                      } catch (RuntimeException e) {
                        // the fault reported by the JVM after the read: the rank fails with it all
                        // the same
                      }
                      return 0;
                    }))
        .hasMessageContaining(
            "rank 0 of 2 (stage attempt 1): reading its shard failed: "
                + "dev.stoker.spark.shard.ShardChangedException: shard file ")
        .hasMessageContaining("0-x.col changed while mapped: 0 bytes, 640 bytes expected");
  }

  @Test
  void shouldRefuseAResultThatCannotReachTheDriver() {
    assertThatThrownBy(() -> declared().run((rank, loader) -> new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "rank 0: its result (java.lang.Object) cannot be sent to the driver: "
                + "java.io.NotSerializableException: java.lang.Object (expected: a serializable "
                + "result, e.g. numbers, strings, arrays or records); rank 1: its result "
                + "(java.lang.Object) cannot be sent to the driver: java.io.NotSerializableException: "
                + "java.lang.Object (expected: a serializable result, e.g. numbers, strings, arrays "
                + "or records)");
  }
}
