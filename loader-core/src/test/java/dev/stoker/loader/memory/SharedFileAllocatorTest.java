package dev.stoker.loader.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedFileAllocatorTest {
  @TempDir Path dir;
  private SharedFileAllocator allocator;

  @BeforeEach
  void open() {
    allocator = SharedFileAllocator.create(dir, "test-shm", 4096);
  }

  @AfterEach
  void close() {
    allocator.close();
    assertThat(allocator.path()).doesNotExist();
  }

  @Test
  void shouldShowEveryBlockToAnotherMappingOfTheFileAtItsOffset() throws IOException {
    try (HostMemory first = allocator.allocate(100);
        HostMemory second = allocator.allocate(64)) {
      second.longs().put(2, 0x1234_5678_9abcL);
      first.bytes().put(99, (byte) 7);
      try (FileChannel channel = FileChannel.open(allocator.path(), StandardOpenOption.READ)) {
        MappedByteBuffer other = channel.map(FileChannel.MapMode.READ_ONLY, 0, 4096);
        other.order(ByteOrder.nativeOrder());
        assertThat(allocator.offsetOf(first)).isZero();
        assertThat(allocator.offsetOf(second)).as("aligned after 100 bytes").isEqualTo(128);
        assertThat(allocator.offsetOf(second.readOnlyView())).isEqualTo(128);
        assertThat(other.get(99)).isEqualTo((byte) 7);
        assertThat(other.getLong(128 + 16)).isEqualTo(0x1234_5678_9abcL);
      }
      assertThat(first.size()).isEqualTo(100);
      assertThat(first.bytes().isDirect()).isTrue();
      assertThat(allocator.allocatedBytes()).isEqualTo(192);
    }
    assertThat(allocator.allocatedBytes()).isZero();
  }

  /**
   * Every page of a new file is taken as it is made (its blocks on disk or in memory cover it), not
   * at its first write while a consumer runs, when a full folder would fault the write.
   */
  @Test
  void shouldTakeEveryPageOfTheFileAsItIsMade() throws Exception {
    long capacity = 3L << 20;
    try (SharedFileAllocator big = SharedFileAllocator.create(dir, "test-pages", capacity)) {
      Process stat =
          new ProcessBuilder("stat", "--format=%b %B", big.path().toString())
              .redirectErrorStream(true)
              .start();
      String[] blocks = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
      assertThat(stat.waitFor()).as("stat: %s", String.join(" ", blocks)).isZero();
      assertThat(Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]))
          .as("bytes of blocks the file holds")
          .isGreaterThanOrEqualTo(capacity);
    }
  }

  @Test
  void shouldMakeAFileOnlyItsOwnerCanRead() throws IOException {
    assertThat(allocator.path().getFileName().toString())
        .startsWith(SharedFileAllocator.PREFIX + ProcessHandle.current().pid() + "-");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(allocator.path())))
        .isEqualTo("rw-------");
    assertThat(Files.size(allocator.path())).isEqualTo(4096);
  }

  @Test
  void shouldReuseAClosedBlocksRangeForABlockOfItsSize() {
    HostMemory first = allocator.allocate(1024);
    HostMemory second = allocator.allocate(1024);
    long firstOffset = allocator.offsetOf(first);
    first.view(); // a view handed out does not keep the range: it keeps only the mapping alive
    first.close();
    try (HostMemory third = allocator.allocate(1000)) {
      assertThat(allocator.offsetOf(third)).isEqualTo(firstOffset);
    }
    second.close();
  }

  @Test
  void shouldRefuseABlockPastTheFilesEndNamingTheFile() {
    try (HostMemory ignored = allocator.allocate(4000)) {
      assertThatThrownBy(() -> allocator.allocate(128))
          .isInstanceOf(OutOfMemoryError.class)
          .hasMessageContaining("host allocator 'test-shm'")
          .hasMessageContaining("raise the limit (maxHostBytes)");
    }
    HostMemory a = allocator.allocate(1024);
    try (HostMemory b = allocator.allocate(2048)) {
      allocator.allocate(1024).close(); // the last range: the end moves back
      a.close(); // 1024 free at the front, 1024 at the end: no 2048 in one piece
      assertThatThrownBy(() -> allocator.allocate(2048))
          .isInstanceOf(OutOfMemoryError.class)
          .hasMessageContaining("no free range of 2048 bytes in " + allocator.path());
      assertThat(allocator.allocatedBytes()).isEqualTo(2048);
    }
  }

  @Test
  void shouldRefuseBadSizesNamingThem() {
    assertThatThrownBy(() -> allocator.allocate(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bytes: 0 (expected: 0 < bytes <= " + SharedFileAllocator.MAX_CAPACITY + ")");
    assertThatThrownBy(() -> SharedFileAllocator.create(dir, "big", 1L << 40))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "allocator 'big' capacity: 1099511627776 (expected: 0 < capacity <= "
                + SharedFileAllocator.MAX_CAPACITY
                + ")");
  }

  @Test
  void shouldRefuseABlockOfAnotherAllocator() {
    try (HostMemory other = DirectAllocator.INSTANCE.allocate(64)) {
      assertThatThrownBy(() -> allocator.offsetOf(other))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not in allocator 'test-shm'");
      assertThatThrownBy(() -> allocator.offsetOf(other.view()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "buffer of 64 bytes is not in allocator 'test-shm' (" + allocator.path() + ")");
    }
  }

  @Test
  void shouldDeleteTheFileOnCloseEvenWithABlockOpenAndSayHowManyBytes() {
    HostMemory open = allocator.allocate(64);
    assertThatThrownBy(allocator::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "host allocator 'test-shm': 64 bytes still open on close (expected: every "
                + "block closed first)");
    assertThat(allocator.path()).doesNotExist();
    assertThatThrownBy(() -> allocator.allocate(64))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("host allocator 'test-shm' is closed");
    open.close();
    allocator.close(); // a second close does nothing
  }

  @Test
  void shouldRemoveOnlyTheFilesOfProcessesThatEnded() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path stale = Files.createFile(dir.resolve(SharedFileAllocator.PREFIX + ended.pid() + "-ab"));
    Path other = Files.createFile(dir.resolve("unrelated-" + ended.pid()));
    assertThat(SharedFileAllocator.removeStale(dir)).isEqualTo(1);
    assertThat(stale).doesNotExist();
    assertThat(other).exists();
    assertThat(allocator.path()).as("this process's own file").exists();
  }
}
