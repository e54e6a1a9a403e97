package dev.stoker.spark.python;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.BatchLayout;
import dev.stoker.loader.state.LoaderState;
import dev.stoker.spark.parquet.OpenCounts;
import dev.stoker.spark.source.BytesDigest;
import dev.stoker.spark.source.StokerScan;
import dev.stoker.spark.testing.SparkClusters;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rank's pump against a stand-in for the Python side that maps the file and follows the control
 * block as {@code stoker/_channel.py} does: every batch through shared memory, and the thread and
 * the file gone on every way out (the epoch's end, Python closing, the task ending while the pump
 * waits, from two threads at once, a read that fails).
 */
class RankPumpTest {
  private static final int ROWS = 200;
  private static final int BATCH = 16;
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final VarHandle INTS =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

  @TempDir static Path data;
  @TempDir Path shm;
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkClusters.local(2);
    spark
        .range(0, ROWS, 1, 2)
        .selectExpr("array(cast(id as float), 1.5f) AS x", "id")
        .write()
        .parquet(data.resolve("t").toString());
    spark
        .range(0, ROWS, 1, 2)
        .selectExpr(
            "id",
            "cast(id % 10 as int) as label",
            "cast(repeat('ab', cast(id % 37 as int)) as binary) as data")
        .write()
        .parquet(data.resolve("v").toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @AfterEach
  void nothingLeft() throws IOException {
    assertThat(OpenCounts.open(OpenCounts.Kind.PYTHON_RANKS)).as("pumps not closed").isZero();
    assertThat(pumpThreads()).isEmpty();
    try (Stream<Path> files = Files.list(shm)) {
      assertThat(files).as("files left in the shared-memory folder").isEmpty();
    }
  }

  private static StokerScan scan(String path) {
    return scan(path, 0);
  }

  private static StokerScan scan(String path, int numWorkers) {
    return scan(path, numWorkers, BATCH);
  }

  private static StokerScan scan(String path, int numWorkers, int batchSize) {
    return scan(path, numWorkers, batchSize, null);
  }

  private static StokerScan scan(String path, int numWorkers, int batchSize, String resumeFrom) {
    Dataset<Row> read =
        spark
            .read()
            .format("stoker")
            .options(resumeFrom == null ? Map.of() : Map.of("resumeFrom", resumeFrom))
            .option("batchSize", batchSize)
            .option("numWorkers", numWorkers)
            .option("worldSize", 2)
            .option("shuffle", true)
            .option("seed", 3)
            .option("dropLast", true)
            .load(path)
            .select("id", "x");
    SparkPlan plan = read.queryExecution().executedPlan();
    while (!(plan instanceof BatchScanExec)) {
      plan = plan.children().apply(0);
    }
    return (StokerScan) ((BatchScanExec) plan).scan();
  }

  private static List<String> pumpThreads() {
    List<String> names = new ArrayList<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.isAlive() && thread.getName().startsWith("stoker-python-rank-")) {
        names.add(thread.getName());
      }
    }
    return names;
  }

  /** The pump threads still alive once none is left or {@code seconds} have passed. */
  private static List<String> pumpThreadsWithin(int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!pumpThreads().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    return pumpThreads();
  }

  private static MappedByteBuffer map(Path file) throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      return (MappedByteBuffer)
          channel
              .map(FileChannel.MapMode.READ_WRITE, 0, channel.size())
              .order(ByteOrder.nativeOrder());
    }
  }

  /**
   * Waits (bounded) until the JVM posted batch {@code k} (true), or left the running state or ended
   * its {@code epochs}-th epoch without it (false).
   */
  private static boolean awaitPosted(MappedByteBuffer page, long k, int epochs)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if ((long) LONGS.getAcquire(page, 24) > k) {
        return true;
      }
      if ((int) INTS.getAcquire(page, 12) != SlotChannel.RUNNING
          || (int) INTS.getAcquire(page, 88) >= epochs) {
        return (long) LONGS.getAcquire(page, 24) > k;
      }
      Thread.sleep(1);
    }
    throw new AssertionError("batch " + k + " not posted within 30 s");
  }

  private static boolean awaitPosted(MappedByteBuffer page, long k) throws InterruptedException {
    return awaitPosted(page, k, Integer.MAX_VALUE);
  }

  @Test
  void shouldHandEveryBatchThroughTheFileEpochAfterEpochAsPythonAsks() throws Exception {
    StokerScan scan = scan(data.resolve("t").toString());
    List<List<Long>> epochs = new ArrayList<>();
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 1, shm)) {
      String handle = pump.handle();
      assertThat(handle)
          .contains(
              "\"rank\":1,\"worldSize\":2,\"epoch\":0,\"batchSize\":16,"
                  + "\"batches\":6,\"rowsPerRank\":96,\"droppedRows\":8")
          .contains(
              "{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2],\"offset\":0,"
                  + "\"rowBytes\":8}")
          .contains(
              "{\"name\":\"id\",\"dtype\":\"int64\",\"shape\":[],\"offset\":128,"
                  + "\"rowBytes\":8}");
      MappedByteBuffer page = map(pump.path());
      assertThat((long) LONGS.get(page, 0)).isEqualTo(SlotChannel.MAGIC);
      long k = 0;
      for (int epoch = 0; epoch < 2; epoch++) {
        if (epoch > 0) {
          Thread.sleep(200); // room for a wrong start of the next epoch, unasked, to show
          assertThat((long) LONGS.getAcquire(page, 24)).as("posted before asked").isEqualTo(k);
          INTS.setRelease(page, 72, epoch + 1); // Python asks for the next epoch
        }
        List<Long> ids = new ArrayList<>();
        long first = k;
        while (awaitPosted(page, k, epoch + 1)) {
          int entry = 4096 + 16 * (int) (k % SlotChannel.RING);
          long slot = (long) LONGS.get(page, entry);
          int rows = (int) INTS.get(page, entry + 8);
          assertThat((int) INTS.get(page, entry + 12))
              .as("batch index in its epoch")
              .isEqualTo((int) (k - first));
          for (int r = 0; r < rows; r++) {
            long id = page.getLong((int) slot + 128 + r * 8);
            ids.add(id);
            assertThat(page.getFloat((int) slot + r * 8)).isEqualTo((float) id);
            assertThat(page.getFloat((int) slot + r * 8 + 4)).isEqualTo(1.5f);
          }
          LONGS.setRelease(page, 32, ++k);
        }
        assertThat((int) INTS.get(page, 12)).isEqualTo(SlotChannel.RUNNING);
        assertThat((int) INTS.get(page, 88)).as("epochs ended").isEqualTo(epoch + 1);
        assertThat((long) LONGS.get(page, 80)).as("where it ended").isEqualTo(k);
        epochs.add(ids);
      }
    }
    for (List<Long> ids : epochs) {
      assertThat(ids).hasSize(6 * BATCH);
      assertThat(new HashSet<>(ids)).hasSize(6 * BATCH);
    }
    assertThat(epochs.get(1))
        .as("the same rows, in the next epoch's order")
        .containsExactlyInAnyOrderElementsOf(epochs.get(0))
        .isNotEqualTo(epochs.get(0));
  }

  @Test
  void shouldHandTheTransformsOutputOfVariableLengthBytesThroughTheFile() throws Exception {
    Dataset<Row> read =
        spark
            .read()
            .format("stoker")
            .option("transforms", "class:" + BytesDigest.class.getName())
            .option("batchSize", BATCH)
            .option("numWorkers", 2)
            .option("worldSize", 2)
            .option("shuffle", true)
            .option("dropLast", true)
            .load(data.resolve("v").toString());
    SparkPlan plan = read.queryExecution().executedPlan();
    while (!(plan instanceof BatchScanExec)) {
      plan = plan.children().apply(0);
    }
    StokerScan scan = (StokerScan) ((BatchScanExec) plan).scan();
    BatchLayout layout = new BatchLayout(scan.config().batchSchema(), BATCH);
    Set<Long> ids = new HashSet<>();
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm)) {
      assertThat(pump.handle()).contains("{\"name\":\"crc\",\"dtype\":\"int64\",\"shape\":[]");
      MappedByteBuffer page = map(pump.path());
      long k = 0;
      while (awaitPosted(page, k, 1)) {
        int entry = 4096 + 16 * (int) (k % SlotChannel.RING);
        int slot = (int) (long) LONGS.get(page, entry);
        int rows = (int) INTS.get(page, entry + 8);
        for (int r = 0; r < rows; r++) {
          long id = page.getLong(slot + layout.columnOffset(0) + r * 8);
          byte[] bytes = "ab".repeat((int) (id % 37)).getBytes(StandardCharsets.US_ASCII);
          CRC32 crc = new CRC32();
          crc.update(bytes);
          assertThat(ids.add(id)).as("row %d twice", id).isTrue();
          assertThat(page.getInt(slot + layout.columnOffset(2) + r * 4)).isEqualTo(bytes.length);
          assertThat(page.getLong(slot + layout.columnOffset(4) + r * 8))
              .as("crc of row %d", id)
              .isEqualTo(crc.getValue());
        }
        LONGS.setRelease(page, 32, ++k);
      }
    }
    assertThat(ids).hasSize(6 * BATCH);
  }

  @Test
  void shouldPostAsManyBatchesAheadAsTheLoaderHasSlotsAndRefillReleasedOnesHalfAtATime()
      throws Exception {
    // 1 worker x prefetch 2, one for the consumer, sixteen kept ahead (small batches): 19 slots
    StokerScan scan = scan(data.resolve("t").toString(), 1, 2); // 50 batches
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm)) {
      MappedByteBuffer page = map(pump.path());
      int slotCount = 3 + RankPump.MAX_KEPT_AHEAD;
      assertThat(awaitPosted(page, slotCount - 1)).isTrue();
      Thread.sleep(200); // room for a wrong post beyond the slots to show
      assertThat((long) LONGS.getAcquire(page, 24))
          .as("posted, none released")
          .isEqualTo(slotCount);
      long[] slots = new long[slotCount];
      for (int k = 0; k < slotCount; k++) {
        slots[k] = (long) LONGS.get(page, 4096 + 16 * k);
      }
      assertThat(slots).doesNotHaveDuplicates();
      int refill = RankPump.wakeAfter(slotCount);
      assertThat(refill).isEqualTo(slotCount / 2);
      LONGS.setRelease(page, 32, refill - 1L);
      Thread.sleep(200);
      assertThat((long) LONGS.getAcquire(page, 24))
          .as("a full pump waits for %d releases", refill)
          .isEqualTo(slotCount);
      LONGS.setRelease(page, 32, refill);
      assertThat(awaitPosted(page, slotCount + refill - 1)).isTrue();
      long[] refilled = new long[refill];
      for (int k = 0; k < refill; k++) {
        refilled[k] = (long) LONGS.get(page, 4096 + 16 * (slotCount + k));
      }
      assertThat(refilled)
          .as("the next batches fill the released batches' slots")
          .containsExactlyInAnyOrder(Arrays.copyOf(slots, refill));
      Thread.sleep(200);
      assertThat((long) LONGS.getAcquire(page, 24)).isEqualTo(slotCount + refill);
    }
  }

  @Test
  void shouldKeepFewerBatchesAheadTheLargerTheyAre() {
    assertThat(RankPump.keptAhead(1 << 10)).isEqualTo(RankPump.MAX_KEPT_AHEAD);
    assertThat(RankPump.keptAhead(20 << 20)).isEqualTo(3);
    assertThat(RankPump.keptAhead(Integer.MAX_VALUE)).isEqualTo(1);
  }

  @Test
  void shouldWakeASleepingSideThroughTheDoorbellAndStopWhenPythonsEndCloses() throws Exception {
    StokerScan scan = scan(data.resolve("t").toString(), 0, 2); // 50 batches, 17 slots
    long refilled;
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm)) {
      MappedByteBuffer page = map(pump.path());
      String handle = pump.handle();
      String bell = handle.replaceAll(".*\"bell\":\"([^\"]+)\".*", "$1");
      assertThat(Path.of(bell)).hasParent(shm);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(bell))))
          .as("only its owner may connect")
          .isEqualTo("rw-------");
      try (SocketChannel python = SocketChannel.open(UnixDomainSocketAddress.of(bell))) {
        assertThat(awaitPosted(page, 0)).isTrue();
        int awaited = awaitJvmSleeping(page);
        int ahead = (int) INTS.getVolatile(page, 52);
        assertThat((long) LONGS.getAcquire(page, 24)).as("every slot posted").isEqualTo(ahead);
        assertThat(awaited)
            .as("a full JVM waits for half its batches to come back")
            .isEqualTo(RankPump.wakeAfter(ahead))
            .isGreaterThan(1);
        refilled = ahead + awaited;
        INTS.setVolatile(page, 48, (int) refilled); // Python sleeps until those are posted
        LONGS.setRelease(page, 32, awaited - 1L);
        python.write(ByteBuffer.wrap(new byte[] {1}));
        Thread.sleep(200);
        assertThat((long) LONGS.getAcquire(page, 24))
            .as("one release short: the JVM sleeps on")
            .isEqualTo(ahead);
        LONGS.setRelease(page, 32, awaited);
        python.write(ByteBuffer.wrap(new byte[] {1}));
        python.configureBlocking(false);
        ByteBuffer ring = ByteBuffer.allocate(1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int got;
        while ((got = python.read(ring)) == 0) {
          assertThat(System.nanoTime())
              .as("no ring once the awaited batches were posted")
              .isLessThan(deadline);
          Thread.sleep(1);
        }
        assertThat(got).isEqualTo(1);
        assertThat((long) LONGS.getAcquire(page, 24)).isEqualTo(refilled);
        INTS.setVolatile(page, 48, 0);
        awaitJvmSleeping(page);
      } // Python's end goes while the JVM sleeps: the pump ends without a release
      assertThat(pumpThreadsWithin(30)).as("the pump's thread after Python's end closed").isEmpty();
      assertThat((long) LONGS.get(page, 24))
          .as("no batch posted after Python's end")
          .isEqualTo(refilled);
    }
  }

  /** Waits until the JVM sleeps on the bell; returns the released count it waits for. */
  private static int awaitJvmSleeping(MappedByteBuffer page) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int awaited;
    while ((awaited = (int) INTS.getVolatile(page, 44)) == 0) {
      assertThat(System.nanoTime()).as("the JVM never slept on the bell").isLessThan(deadline);
      Thread.sleep(1);
    }
    return awaited;
  }

  @Test
  void shouldStopWhenPythonClosesItsSide() throws Exception {
    StokerScan scan = scan(data.resolve("t").toString(), 0, 2); // more batches than slots
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm)) {
      MappedByteBuffer page = map(pump.path());
      assertThat(awaitPosted(page, RankPump.MAX_KEPT_AHEAD)).isTrue();
      INTS.setRelease(page, 16, SlotChannel.PY_CLOSED);
      assertThat(pumpThreadsWithin(30)).as("the pump's thread after Python closed").isEmpty();
      assertThat((long) LONGS.get(page, 24))
          .as("batches posted: one and those kept ahead")
          .isEqualTo(1 + RankPump.MAX_KEPT_AHEAD);
    }
  }

  @Test
  void shouldStopWhenPythonClosesItsSideBetweenTwoEpochs() throws Exception {
    StokerScan scan = scan(data.resolve("t").toString());
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm)) {
      MappedByteBuffer page = map(pump.path());
      long k = 0;
      while (awaitPosted(page, k, 1)) {
        LONGS.setRelease(page, 32, ++k);
      }
      Thread.sleep(100); // the pump waits for the next epoch to be asked for
      assertThat(pumpThreads()).hasSize(1);
      INTS.setRelease(page, 16, SlotChannel.PY_CLOSED);
      assertThat(pumpThreadsWithin(30)).as("the pump's thread after Python closed").isEmpty();
      assertThat((long) LONGS.get(page, 24)).as("no batch of an epoch not asked for").isEqualTo(k);
    }
  }

  @Test
  void shouldEndItsThreadAndDeleteTheFileWhenTheTaskEndsWhileItWaits() throws Exception {
    StokerScan scan = scan(data.resolve("t").toString(), 0, 2); // more batches than slots
    RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm);
    MappedByteBuffer page = map(pump.path());
    assertThat(awaitPosted(page, 0)).isTrue(); // Python never releases it
    CountDownLatch go = new CountDownLatch(1);
    List<Throwable> failures = new ArrayList<>();
    Thread other =
        new Thread(
            () -> {
              try {
                go.await();
                pump.close();
              } catch (Throwable t) {
                synchronized (failures) {
                  failures.add(t);
                }
              }
            });
    other.start();
    go.countDown();
    pump.close();
    other.join();
    assertThat(failures).isEmpty();
    assertThat((int) INTS.get(page, 12)).isEqualTo(SlotChannel.STOPPED);
  }

  @Test
  void shouldSendAFailedReadsReasonThroughThePage() throws Exception {
    Path copy = data.resolve("gone");
    spark.read().parquet(data.resolve("t").toString()).write().parquet(copy.toString());
    StokerScan scan = scan(copy.toString());
    try (Stream<Path> files = Files.list(copy)) {
      for (Path file : files.toList()) {
        Files.write(file, new byte[] {1, 2, 3}); // damaged after planning
      }
    }
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm)) {
      MappedByteBuffer page = map(pump.path());
      assertThat(awaitPosted(page, 0)).isFalse();
      assertThat((int) INTS.get(page, 12)).isEqualTo(SlotChannel.FAILED);
      byte[] text = new byte[(int) INTS.get(page, 20)];
      page.get(128, text);
      assertThat(new String(text, StandardCharsets.UTF_8))
          .startsWith("rank 0: ")
          .contains(copy.toString());
    }
  }

  @Test
  void shouldRefuseAnEpochAfterOneResumedMidWaySayingWhy() throws Exception {
    String path = data.resolve("t").toString();
    LoaderState state = scan(path).stateAfter(2);
    StokerScan resumed = scan(path, 0, BATCH, state.toString());
    try (RankPump pump =
        RankPump.start(
            resumed.plan(),
            resumed.config(),
            0,
            shm,
            resumed.stateAfter(0),
            resumed.read().dataset().options().resumeFrom(),
            null,
            null)) {
      assertThat(pump.handle()).contains("\"state\":\"" + resumed.stateAfter(0) + "\"");
      MappedByteBuffer page = map(pump.path());
      long k = 0;
      while (awaitPosted(page, k, 1)) {
        LONGS.setRelease(page, 32, ++k);
      }
      assertThat(k).as("the rest of the resumed epoch").isEqualTo(4);
      INTS.setRelease(page, 72, 2);
      assertThat(awaitPosted(page, k, 2)).isFalse();
      assertThat((int) INTS.get(page, 12)).isEqualTo(SlotChannel.FAILED);
      byte[] text = new byte[(int) INTS.get(page, 20)];
      page.get(128, text);
      assertThat(new String(text, StandardCharsets.UTF_8))
          .startsWith("rank 0: ")
          .contains("the read resumed epoch 0 mid-way")
          .contains("a new read with epoch=1 and no resumeFrom");
    }
  }

  @Test
  void shouldSendTheReasonOfAReadThatFailsInALaterEpoch() throws Exception {
    Path copy = data.resolve("later");
    spark.read().parquet(data.resolve("t").toString()).write().parquet(copy.toString());
    StokerScan scan = scan(copy.toString());
    try (RankPump pump = RankPump.start(scan.plan(), scan.config(), 0, shm)) {
      MappedByteBuffer page = map(pump.path());
      long k = 0;
      while (awaitPosted(page, k, 1)) {
        LONGS.setRelease(page, 32, ++k);
      }
      assertThat(k).as("the first epoch whole").isEqualTo(6);
      try (Stream<Path> files = Files.list(copy)) {
        for (Path file : files.toList()) {
          Files.write(file, new byte[] {1, 2, 3}); // damaged between the two epochs
        }
      }
      INTS.setRelease(page, 72, 2);
      assertThat(awaitPosted(page, k, 2)).isFalse();
      assertThat((int) INTS.get(page, 12)).isEqualTo(SlotChannel.FAILED);
      assertThat((int) INTS.get(page, 88)).as("epochs ended").isEqualTo(1);
      byte[] text = new byte[(int) INTS.get(page, 20)];
      page.get(128, text);
      assertThat(new String(text, StandardCharsets.UTF_8))
          .startsWith("rank 0: ")
          .contains(copy.toString());
    }
  }

  @Test
  void shouldNameTheFileAndItsFolderWhenTheJvmReportsAFaultOnTheSlots() {
    Path file = shm.resolve("stoker-shm-1-ab");
    String fault =
        RankPump.describe(
            new IllegalStateException(
                "batch 3 failed",
                new InternalError("a fault occurred in an unsafe memory access operation")),
            file,
            4096);
    assertThat(fault)
        .startsWith(
            "java.lang.IllegalStateException: batch 3 failed; caused by "
                + "java.lang.InternalError: a fault occurred")
        .contains(file + " of 4096 bytes faulted on access")
        .contains("another process shortened or removed it, or " + shm + " failed, ")
        .contains("bytes free now")
        .contains(PythonRanks.DIR_CONF);
    assertThat(RankPump.describe(new IllegalStateException("bad row"), file, 4096))
        .isEqualTo("java.lang.IllegalStateException: bad row");
  }

  /**
   * The slot file owns its pages from its making on: a folder that fills up afterwards changes
   * nothing for the rank (a page first written then would fault, in the JVM and in Python), and a
   * folder without room for another rank's file refuses it at once, naming the folder. A tmpfs of
   * its own (mounting one needs root) is filled to its last page.
   */
  @Test
  void shouldOwnTheSlotPagesFromTheStartSoThatAFolderFillingUpLaterChangesNothing()
      throws Exception {
    Path small = Files.createTempDirectory("stoker-small-shm");
    try {
      Assumptions.assumeTrue(
          command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small.toString()),
          "mounting a small tmpfs needs root");
      try {
        StokerScan scan = scan(data.resolve("t").toString());
        try (RankPump pump = RankPump.open(scan.plan(), scan.config(), 0, small)) {
          MappedByteBuffer page = map(pump.path());
          Path filler = fill(small.resolve("filler"));
          pump.begin();
          long k = 0;
          while (awaitPosted(page, k, 1)) {
            int slot = (int) (long) LONGS.getAcquire(page, 4096 + 16 * (int) k);
            // the slot starts with column x of its first row: {id, 1.5f}
            assertThat(page.getFloat(slot))
                .as("batch %d's first x[0], read from its slot", k)
                .isBetween(0f, ROWS - 1f);
            assertThat(page.getFloat(slot + 4)).isEqualTo(1.5f);
            LONGS.setRelease(page, 32, ++k);
          }
          assertThat((int) INTS.get(page, 12))
              .as("the rank's state")
              .isEqualTo(SlotChannel.RUNNING);
          assertThat(k).as("rank 0's batches").isEqualTo(6);
          assertThatThrownBy(() -> RankPump.open(scan.plan(), scan.config(), 1, small))
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining(small + " has ")
              .hasMessageContaining("bytes needed (mount " + "a larger " + small);
          Files.delete(filler);
        }
        try (Stream<Path> files = Files.list(small)) {
          assertThat(files).as("files left in the small folder").isEmpty();
        }
      } finally {
        command("umount", "-l", small.toString());
      }
    } finally {
      Files.deleteIfExists(small);
    }
  }

  /** Runs {@code args}: true if it exited 0 within 30 s. */
  private static boolean command(String... args) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(args)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return false;
    }
    return process.exitValue() == 0;
  }

  /** A file at {@code file} written until its folder has no room left. */
  private static Path fill(Path file) throws IOException {
    byte[] chunk = new byte[4096];
    Arrays.fill(chunk, (byte) 1);
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(chunk);
      while (true) {
        buffer.clear();
        channel.write(buffer);
      }
    } catch (IOException full) {
      if (Files.getFileStore(file.getParent()).getUsableSpace() >= chunk.length) {
        throw full;
      }
    }
    return file;
  }
}
