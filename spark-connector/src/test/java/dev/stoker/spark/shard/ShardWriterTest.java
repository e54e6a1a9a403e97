package dev.stoker.spark.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.Batch;
import dev.stoker.loader.DType;
import dev.stoker.loader.DataLoader;
import dev.stoker.loader.Field;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Schema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardWriterTest {
  private static final ShardLayout LAYOUT =
      new ShardLayout(Schema.of(Field.of("x", DType.FLOAT32, 3), Field.scalar("id", DType.INT64)));

  @TempDir Path temp;
  private ShardFiles files;

  @BeforeEach
  void open() throws Exception {
    files = ShardFiles.create(temp.resolve("local"), "shard-0");
  }

  @AfterEach
  void removed() {
    files.delete();
    assertThat(files.folder()).doesNotExist();
  }

  /** A block of rows first .. first + rows - 1, each holding its row number everywhere. */
  private static ShardBlock block(long first, int rows) {
    ShardBlock block = ShardBlock.allocate(LAYOUT, first, rows);
    for (int r = 0; r < rows; r++) {
      ByteBuffer x = ByteBuffer.wrap(block.column(0)).order(ByteOrder.nativeOrder());
      ByteBuffer id = ByteBuffer.wrap(block.column(1)).order(ByteOrder.nativeOrder());
      for (int e = 0; e < 3; e++) {
        x.putFloat((r * 3 + e) * 4, (first + r) * 10 + e);
      }
      id.putLong(r * 8, first + r);
      block.added(1);
    }
    return block;
  }

  @Test
  void shouldPlaceBlocksAtTheirRowsInAnyOrder() throws Exception {
    MappedShard shard;
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 20, "rank 0")) {
      writer.write(block(5, 3));
      writer.write(block(0, 5));
      writer.write(block(8, 2).trimmed(LAYOUT));
      assertThat(writer.rowsWritten()).isEqualTo(10);
      shard = writer.map(10);
    }
    ShardDataset dataset = new ShardDataset(shard, 10);
    try (DataLoader loader =
        new DataLoader(dataset, LoaderOptions.builder().batchSize(4).build())) {
      List<Long> ids = new ArrayList<>();
      for (Batch batch : loader.epoch(0)) {
        for (int r = 0; r < batch.size(); r++) {
          long id = batch.getLong(1, r, 0);
          ids.add(id);
          assertThat(batch.getFloat(0, r, 2)).isEqualTo(id * 10 + 2);
        }
      }
      assertThat(ids).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    }
    shard.release();
  }

  @Test
  void shouldDropTheLastRowsOrWrapAroundToReachTheSamplesAsked() throws Exception {
    MappedShard shard;
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 20, "rank 0")) {
      writer.write(block(0, 3));
      shard = writer.map(3);
    }
    try (DataLoader loader =
        new DataLoader(new ShardDataset(shard, 5), LoaderOptions.builder().batchSize(5).build())) {
      Batch batch = loader.epoch(0).iterator().next();
      long[] ids = new long[5];
      for (int r = 0; r < 5; r++) {
        ids[r] = batch.getLong(1, r, 0);
      }
      assertThat(ids).containsExactly(0, 1, 2, 0, 1);
    }
    assertThat(new ShardDataset(shard, 2).size()).isEqualTo(2);
    shard.release();
  }

  @Test
  void shouldRefuseAShardOverItsBudgetNamingTheSizes() throws Exception {
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 90, "rank 1")) {
      writer.write(block(0, 4));
      assertThatThrownBy(() -> writer.write(block(4, 1)))
          .isInstanceOf(ShardBudgetException.class)
          .hasMessage(
              "shard of rank 1: 5 rows x 20 bytes = 100 bytes (expected: at most "
                  + "maxShardBytes = 90 bytes; raise maxShardBytes, use more ranks or fewer "
                  + "columns)");
    }
  }

  @Test
  void shouldCheckTheBudgetOfAKnownSizeBeforeWritingAnything() throws Exception {
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 3 << 20, "rank 0")) {
      assertThatThrownBy(() -> writer.reserve(1 << 20))
          .hasMessage(
              "shard of rank 0: 1048576 rows x 20 bytes = 20.0 MiB (20971520 bytes) "
                  + "(expected: at most maxShardBytes = 3.0 MiB (3145728 bytes); raise "
                  + "maxShardBytes, use more ranks or fewer columns)");
    }
  }

  @Test
  void shouldRemoveTheFolderOnceFromAnyCaller() throws Exception {
    try (ShardWriter writer = new ShardWriter(files, LAYOUT, 1 << 20, "rank 0")) {
      writer.write(block(0, 2));
    }
    assertThat(Files.list(files.folder())).hasSize(3);
    files.delete();
    files.delete();
    assertThat(files.isDeleted()).isTrue();
    assertThat(files.folder()).doesNotExist();
  }
}
