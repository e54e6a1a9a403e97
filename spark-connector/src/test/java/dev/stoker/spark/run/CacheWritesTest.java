package dev.stoker.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DType;
import dev.stoker.loader.Field;
import dev.stoker.loader.Schema;
import dev.stoker.loader.memory.DirectAllocator;
import dev.stoker.spark.parquet.ColumnSpec;
import dev.stoker.spark.parquet.ShuffleWindow;
import dev.stoker.spark.parquet.SourceColumn;
import dev.stoker.spark.shard.ShardLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache's writer thread takes windows in order from two staging blocks: a stream that runs
 * ahead of the disk waits ({@code cache=disk}) or is told ({@code cache=auto}), and a failed write
 * reaches the stream. A cache in memory is written inline, on the stream's thread.
 */
@Timeout(30)
class CacheWritesTest {
  private static final List<ColumnSpec> COLUMNS =
      List.of(new ColumnSpec("id", SourceColumn.Kind.SCALAR, DType.INT64, new int[0], "test"));
  private static final ShardLayout LAYOUT =
      new ShardLayout(Schema.of(List.of(Field.scalar("id", DType.INT64))));

  /** Offers a window holding ids {@code first .. first + rows - 1}. */
  private static boolean offer(
      CacheWrites writes, DirectAllocator allocator, long first, int rows, boolean wait)
      throws IOException, InterruptedException {
    try (ShuffleWindow window = new ShuffleWindow(allocator, COLUMNS, rows)) {
      ByteBuffer bytes = window.buffer().order(ByteOrder.nativeOrder());
      for (int r = 0; r < rows; r++) {
        bytes.putLong(window.offset(0, r, 1), first + r);
      }
      return writes.offer(window, rows, wait);
    }
  }

  @Test
  void shouldTellAStreamThatRunsAheadOfTheDiskAndWriteEveryRowInOrderOtherwise() throws Exception {
    CountDownLatch disk = new CountDownLatch(1);
    List<Long> written = new ArrayList<>();
    AtomicBoolean completed = new AtomicBoolean();
    CacheWrites.BlockWriter slow =
        (firstRow, rows, columns) -> {
          try {
            disk.await();
          } catch (InterruptedException e) {
            throw new IOException(e);
          }
          for (int r = 0; r < rows; r++) {
            written.add(columns[0].order(ByteOrder.nativeOrder()).getLong(r * 8));
          }
        };
    try (DirectAllocator allocator = new DirectAllocator("test", 1 << 16);
        CacheWrites writes =
            new CacheWrites(slow, LAYOUT, 30, 10, "writer", () -> completed.set(true))) {
      assertThat(offer(writes, allocator, 0, 10, false)).isTrue();
      assertThat(offer(writes, allocator, 10, 10, false)).isTrue();
      assertThat(offer(writes, allocator, 20, 10, false))
          .as("both blocks wait for the disk")
          .isFalse();
      disk.countDown();
      assertThat(offer(writes, allocator, 20, 10, true)).as("waits, then takes it").isTrue();
      assertThat(writes.allOffered()).isTrue();
      writes.awaitDone();
      assertThat(completed).isTrue();
    }
    List<Long> expected = new ArrayList<>();
    for (long id = 0; id < 30; id++) {
      expected.add(id);
    }
    assertThat(written).isEqualTo(expected);
  }

  @Test
  void shouldHandAFailedWriteToTheStream() throws Exception {
    CacheWrites.BlockWriter failing =
        (firstRow, rows, columns) -> {
          throw new IOException("No space left on device");
        };
    try (DirectAllocator allocator = new DirectAllocator("test", 1 << 16);
        CacheWrites writes = new CacheWrites(failing, LAYOUT, 20, 10, "writer", () -> {})) {
      offer(writes, allocator, 0, 10, true);
      assertThatThrownBy(writes::awaitDone)
          .isInstanceOf(IOException.class)
          .hasMessage("writing the shard cache failed: No space left on device");
      assertThatThrownBy(() -> offer(writes, allocator, 10, 10, true))
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void shouldStopWhenClosedWhileTheDiskHangs() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    CacheWrites.BlockWriter hanging =
        (firstRow, rows, columns) -> {
          try {
            never.await();
          } catch (InterruptedException e) {
            throw new IOException("interrupted", e);
          }
        };
    try (DirectAllocator allocator = new DirectAllocator("test", 1 << 16)) {
      CacheWrites writes = new CacheWrites(hanging, LAYOUT, 20, 10, "writer", () -> {});
      offer(writes, allocator, 0, 10, true);
      writes.close();
      assertThat(writes.done()).isFalse();
      assertThatThrownBy(writes::awaitDone).isInstanceOf(IOException.class);
    }
  }

  @Test
  void shouldWriteInlineFromTheWindowOnTheStreamsThreadAndCompleteWithTheLastRow()
      throws Exception {
    List<Long> written = new ArrayList<>();
    List<Thread> writers = new ArrayList<>();
    AtomicBoolean completed = new AtomicBoolean();
    CacheWrites.BlockWriter direct =
        (firstRow, rows, columns) -> {
          writers.add(Thread.currentThread());
          assertThat(columns[0].isDirect()).as("the window's own memory").isTrue();
          for (int r = 0; r < rows; r++) {
            assertThat(firstRow + r).isEqualTo(written.size());
            written.add(columns[0].order(ByteOrder.nativeOrder()).getLong(r * 8));
          }
        };
    try (DirectAllocator allocator = new DirectAllocator("test", 1 << 16);
        CacheWrites writes = CacheWrites.inline(direct, 25, () -> completed.set(true))) {
      assertThat(offer(writes, allocator, 0, 10, false)).isTrue();
      assertThat(offer(writes, allocator, 10, 10, false)).isTrue();
      assertThat(completed).isFalse();
      assertThat(writes.allOffered()).isFalse();
      assertThat(offer(writes, allocator, 20, 5, false)).isTrue();
      assertThat(writes.allOffered()).isTrue();
      assertThat(writes.done()).isTrue();
      writes.awaitDone();
      assertThat(completed).isTrue();
    }
    assertThat(writers).containsOnly(Thread.currentThread());
    List<Long> expected = new ArrayList<>();
    for (long id = 0; id < 25; id++) {
      expected.add(id);
    }
    assertThat(written).isEqualTo(expected);
  }

  @Test
  void shouldHandAFailedInlineWriteOrErrorToTheStreamAndRefuseWritesOnceClosed() throws Exception {
    try (DirectAllocator allocator = new DirectAllocator("test", 1 << 16)) {
      CacheWrites.BlockWriter full =
          (firstRow, rows, columns) -> {
            throw new IOException("No space left on device");
          };
      try (CacheWrites writes = CacheWrites.inline(full, 20, () -> {})) {
        assertThatThrownBy(() -> offer(writes, allocator, 0, 10, true))
            .isInstanceOf(IOException.class)
            .hasMessage("writing the shard cache failed: No space left on device");
        assertThatThrownBy(writes::awaitDone).isInstanceOf(IOException.class);
      }
      CacheWrites.BlockWriter broken =
          (firstRow, rows, columns) -> {
            throw new OutOfMemoryError("Direct buffer memory");
          };
      try (CacheWrites writes = CacheWrites.inline(broken, 20, () -> {})) {
        assertThatThrownBy(() -> offer(writes, allocator, 0, 10, true))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("Direct buffer memory");
      }
      AtomicBoolean completed = new AtomicBoolean();
      CacheWrites writes = CacheWrites.inline((f, r, c) -> {}, 20, () -> completed.set(true));
      offer(writes, allocator, 0, 10, true);
      writes.close();
      assertThatThrownBy(() -> offer(writes, allocator, 10, 10, true))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("stopped");
      assertThat(completed).isFalse();
      assertThatThrownBy(writes::awaitDone).isInstanceOf(IOException.class);
    }
  }

  @Test
  void shouldFailAnInlineWriteWhoseThreadIsInterruptedAndLeaveTheThreadInterrupted(
      @TempDir Path folder) throws Exception {
    try (DirectAllocator allocator = new DirectAllocator("test", 1 << 16);
        FileChannel file =
            FileChannel.open(
                folder.resolve("cache"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      CacheWrites.BlockWriter toFile =
          (firstRow, rows, columns) -> file.write(columns[0].duplicate(), firstRow * 8);
      CacheWrites writes = CacheWrites.inline(toFile, 20, () -> {});
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(() -> offer(writes, allocator, 0, 10, true))
            .isInstanceOf(IOException.class)
            .hasRootCauseInstanceOf(ClosedByInterruptException.class);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(file.isOpen()).as("the JDK closed it").isFalse();
      assertThatThrownBy(() -> offer(writes, allocator, 10, 10, true))
          .isInstanceOf(IOException.class);
      writes.close();
    }
  }
}
