package dev.stoker.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.ChunkStream;
import dev.stoker.loader.ColumnChunk;
import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.loader.StreamRequest;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.spark.CacheMode;
import dev.stoker.spark.parquet.ColumnSpec;
import dev.stoker.spark.parquet.HadoopConf;
import dev.stoker.spark.parquet.RankRuns;
import dev.stoker.spark.parquet.RankStream;
import dev.stoker.spark.parquet.ReadConfig;
import dev.stoker.spark.parquet.ReadRun;
import dev.stoker.spark.parquet.SourceColumn;
import dev.stoker.spark.parquet.SourceCounters;
import dev.stoker.spark.shard.MappedShard;
import dev.stoker.spark.shard.ShardFiles;
import dev.stoker.spark.shard.ShardLayout;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming rank's shard cache, driven by a real stream over a Parquet file: written on its own
 * thread from the epoch its mode picks, mapped once every row is written, dropped when the epoch
 * stops early, and gone, files and all, when closed.
 */
@Timeout(60)
class RankCacheTest {
  private static final int ROWS = 5000;
  private static final int WINDOW = 700;
  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType("message m { required int64 id; }");
  private static final List<ColumnSpec> COLUMNS =
      List.of(
          new ColumnSpec("id", SourceColumn.Kind.SCALAR, DType.INT64, new int[0], "the footers"));
  private static final ShardLayout LAYOUT =
      new ShardLayout(Schema.of(List.of(Field.scalar("id", DType.INT64))));

  @TempDir Path folder;
  private ReadConfig config;
  private RankRuns runs;
  private DirectAllocator windows;
  private final AtomicInteger folders = new AtomicInteger();

  @BeforeEach
  void writeFile() throws IOException {
    Path file = folder.resolve("ids.parquet");
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
            .withType(SCHEMA)
            .withConf(new Configuration())
            .build()) {
      for (long id = 0; id < ROWS; id++) {
        writer.write(groups.newGroup().append("id", id));
      }
    }
    String path = file.toUri().toString();
    long length = Files.size(file);
    config = config(WINDOW);
    runs =
        new RankRuns(
            0, ROWS, List.of(new ReadRun(path, 0, length, 0, 1, 0, ROWS, 0, ROWS, length, true)));
    windows = new DirectAllocator("windows", 2 * 8L * ROWS);
  }

  private static ReadConfig config(int windowRows) {
    return new ReadConfig(
        null, 0, null, COLUMNS, windowRows, windowRows, new HadoopConf(new Configuration()), true);
  }

  @AfterEach
  void freeWindows() {
    windows.close();
  }

  private RankCache cache(CacheMode mode) {
    return cache(mode, 0);
  }

  private RankCache cache(CacheMode mode, int epochs) {
    return cache(mode, epochs, 1L << 30);
  }

  private RankCache cache(CacheMode mode, int epochs, long budget) {
    return cache(mode, epochs, budget, 0);
  }

  /** A cache whose memory-tier folders are made in "memory", its disk ones in "shards". */
  private RankCache cache(CacheMode mode, int epochs, long budget, long memoryBudget) {
    return new RankCache(
        mode,
        epochs,
        ROWS,
        config.windowRows(),
        LAYOUT,
        budget,
        memoryBudget,
        "rank 0",
        inMemory ->
            ShardFiles.create(
                folder.resolve(inMemory ? "memory" : "shards"),
                ShardFiles.PREFIX + "test-" + folders.incrementAndGet()));
  }

  /** Streams one epoch, {@code chunks} chunks of it (-1: all), through the cache's sink. */
  private void stream(RankCache cache, int epoch, int chunks) throws Exception {
    try (ChunkStream stream =
        new RankStream(
            config,
            runs,
            new StreamRequest(epoch, true, 7, 0, 1),
            windows,
            new SourceCounters(),
            cache.openEpoch())) {
      for (int n = 0; n != chunks; n++) {
        ColumnChunk chunk = stream.next();
        if (chunk == null) {
          break;
        }
        chunk.close();
      }
    }
  }

  private long shardFolders() throws IOException {
    return shardFolders("shards");
  }

  private long shardFolders(String where) throws IOException {
    Path shards = folder.resolve(where);
    if (!Files.isDirectory(shards)) {
      return 0;
    }
    try (Stream<Path> listed = Files.list(shards)) {
      return listed.filter(p -> p.getFileName().toString().startsWith(ShardFiles.PREFIX)).count();
    }
  }

  @Test
  void shouldWriteWhileTheSecondEpochStreamsWithAuto() throws Exception {
    config = config(ROWS); // one window: the writer cannot fall behind
    try (RankCache cache = cache(CacheMode.AUTO)) {
      stream(cache, 0, -1);
      assertThat(cache.mapped()).as("one epoch writes nothing").isNull();
      assertThat(shardFolders()).isZero();

      stream(cache, 1, -1);
      MappedShard shard = cache.mapped();
      assertThat(shard).as("mapped when the epoch that wrote it ends").isNotNull();

      assertThat(shard.rows()).isEqualTo(ROWS);
      for (long row = 0; row < ROWS; row++) {
        long id =
            shard.segment(0, row).order(ByteOrder.nativeOrder()).getLong(shard.offset(0, row));
        assertThat(id).as("row %d in reading order", row).isEqualTo(row);
      }
      assertThat(cache.bytes()).isEqualTo(ROWS * 8L);
      assertThat(cache.openEpoch()).as("later epochs read the cache").isNull();
    }
    assertThat(shardFolders()).as("closed: the files are gone").isZero();
  }

  @Test
  void shouldKeepACacheThatFitsInMemoryFromTheFirstEpochWithAuto() throws Exception {
    try (RankCache cache = cache(CacheMode.AUTO, 0, 1L << 30, ROWS * 8L)) {
      stream(cache, 0, -1);
      assertThat(cache.mapped()).as("memory: written while the first epoch streams").isNotNull();
      assertThat(cache.inMemory()).isTrue();
      assertThat(shardFolders("memory")).isOne();
      assertThat(shardFolders("shards")).isZero();
      assertThat(cache.openEpoch()).as("later epochs read the cache").isNull();
    }
    assertThat(shardFolders("memory")).as("closed: the files are gone").isZero();

    config = config(ROWS);
    try (RankCache larger = cache(CacheMode.AUTO, 0, 1L << 30, ROWS * 8L - 1)) {
      stream(larger, 0, -1);
      assertThat(larger.mapped()).as("too large for memory: the disk, from epoch 1").isNull();
      stream(larger, 1, -1);
      assertThat(larger.mapped()).isNotNull();
      assertThat(larger.inMemory()).isFalse();
      assertThat(shardFolders("shards")).isOne();
      assertThat(shardFolders("memory")).isZero();
    }
  }

  @Test
  void shouldTakeTheDiskWhenMemoryCannotBeHadWithAuto() throws Exception {
    config = config(ROWS);
    try (RankCache cache =
        new RankCache(
            CacheMode.AUTO,
            0,
            ROWS,
            config.windowRows(),
            LAYOUT,
            1L << 30,
            ROWS * 8L,
            "rank 0",
            inMemory -> {
              if (inMemory) {
                throw new IOException("/dev/shm/stoker-someone: permission denied");
              }
              return ShardFiles.create(
                  folder.resolve("shards"),
                  ShardFiles.PREFIX + "test-" + folders.incrementAndGet());
            })) {
      stream(cache, 0, -1);
      assertThat(cache.mapped()).as("the disk's rule: written in the second epoch").isNull();
      stream(cache, 1, -1);
      assertThat(cache.mapped()).isNotNull();
      assertThat(cache.inMemory()).isFalse();
      assertThat(shardFolders("shards")).isOne();
    }
  }

  @Test
  void shouldRefuseACacheInMemoryThatDoesNotFitNamingTheOption() throws Exception {
    try (RankCache memory = cache(CacheMode.MEMORY, 0, 1L << 30, ROWS * 8L - 1)) {
      assertThatThrownBy(memory::openEpoch)
          .isInstanceOf(IOException.class)
          .hasMessageContaining(
              "shard cache of rank 0: 39.1 KiB (40000 bytes) of rows to keep in memory")
          .hasMessageContaining(
              "cacheMemory and the memory-backed folder allow 39.1 KiB (39999 bytes)")
          .hasMessageContaining("raise cacheMemory");
    }
    try (RankCache none = cache(CacheMode.MEMORY, 0, 1L << 30, 0)) {
      assertThatThrownBy(none::openEpoch)
          .hasMessageContaining("no memory-backed folder (/dev/shm) takes it here");
    }
    try (RankCache memory = cache(CacheMode.MEMORY, 1, 1L << 30, ROWS * 8L)) {
      stream(memory, 0, -1);
      assertThat(memory.mapped()).as("memory: written even for one epoch").isNotNull();
      assertThat(shardFolders("memory")).isOne();
    }
  }

  @Test
  void shouldBudgetTheMemoryTierWithinWhatTheFolderTakes() throws IOException {
    assertThat(MemoryTier.budget(0)).isZero();
    assertThat(MemoryTier.budget(1 << 20)).isBetween(0L, 1L << 20);
    long auto = MemoryTier.budget(dev.stoker.spark.options.SparkOptionTable.CACHE_MEMORY_AUTO);
    if (Files.isDirectory(MemoryTier.SHM)
        && "tmpfs".equals(Files.getFileStore(MemoryTier.SHM).type())) {
      assertThat(auto)
          .isLessThanOrEqualTo(Files.getFileStore(MemoryTier.SHM).getUsableSpace())
          .isPositive();
    } else {
      assertThat(auto).as("no memory-backed folder here").isZero();
    }
  }

  @Test
  void shouldWriteTheFirstEpochWithDiskAndNeverWithNone() throws Exception {
    try (RankCache disk = cache(CacheMode.DISK)) {
      stream(disk, 0, -1);
      assertThat(disk.mapped()).as("disk: mapped when the epoch ends").isNotNull();
    }
    try (RankCache none = cache(CacheMode.NONE)) {
      for (int epoch = 0; epoch < 3; epoch++) {
        stream(none, epoch, -1);
      }
      assertThat(none.mapped()).isNull();
      assertThat(shardFolders()).isZero();
    }
  }

  @Test
  void shouldWriteTheFirstEpochWithAutoToldOfMoreEpochsAndNothingForOne() throws Exception {
    try (RankCache more = cache(CacheMode.AUTO, 3)) {
      stream(more, 0, -1);
      assertThat(more.mapped()).as("auto, 3 epochs: mapped when the first ends").isNotNull();
    }
    try (RankCache one = cache(CacheMode.AUTO, 1)) {
      stream(one, 0, -1);
      stream(one, 1, -1);
      assertThat(one.mapped()).as("auto, told of one epoch: no cache").isNull();
      assertThat(shardFolders()).isZero();
    }
  }

  @Test
  void shouldDropTheCacheOfAnEpochThatStopsEarlyAndWriteItAgainNextTime() throws Exception {
    try (RankCache cache = cache(CacheMode.DISK)) {
      stream(cache, 0, 2);
      assertThat(cache.mapped()).isNull();
      assertThat(shardFolders()).as("the partial cache is gone").isZero();

      stream(cache, 1, -1);
      assertThat(cache.mapped()).isNotNull();
      assertThat(shardFolders()).isEqualTo(1);
    }
    assertThat(shardFolders()).isZero();
  }

  @Test
  void shouldStreamEveryEpochWithAutoAndFailWithDiskWhenTheCacheDoesNotFitItsBudget()
      throws Exception {
    try (RankCache auto = cache(CacheMode.AUTO, 3, ROWS * 8L - 1)) {
      for (int epoch = 0; epoch < 3; epoch++) {
        stream(auto, epoch, -1); // every epoch streams, none fails
      }
      assertThat(auto.mapped()).isNull();
      assertThat(shardFolders()).isZero();
    }
    try (RankCache disk = cache(CacheMode.DISK, 0, ROWS * 8L - 1)) {
      assertThatThrownBy(() -> stream(disk, 0, -1))
          .hasMessageContaining("(expected: at most maxShardBytes = ");
      assertThat(shardFolders()).isZero();
    }
  }

  @Test
  void shouldDeleteTheFilesWhenTheTaskEndsWhileWriting() throws Exception {
    RankCache cache = cache(CacheMode.AUTO);
    stream(cache, 0, -1);
    stream(cache, 1, 3);
    cache.deleteFiles();
    assertThat(shardFolders()).isZero();
    cache.close();
    assertThat(cache.mapped()).isNull();
  }
}
