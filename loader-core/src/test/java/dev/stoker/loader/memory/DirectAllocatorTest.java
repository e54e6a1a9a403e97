package dev.stoker.loader.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DirectAllocatorTest {
  private HostMemory block;

  @BeforeEach
  void allocate() {
    block = DirectAllocator.INSTANCE.allocate(200);
  }

  @AfterEach
  void free() {
    block.close();
    assertThat(block.isClosed()).isTrue();
  }

  @Test
  void shouldDescribeItselfAsUnpinnedDirectMemory() {
    assertThat(DirectAllocator.INSTANCE.name()).isEqualTo("direct");
    assertThat(DirectAllocator.INSTANCE.pinned()).isFalse();
  }

  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(ints = {1, 7, 64, 65, 4096, 1 << 20})
  void shouldGiveExactlyTheBytesAskedFor(int bytes) {
    try (HostMemory memory = DirectAllocator.INSTANCE.allocate(bytes)) {
      assertThat(memory.size()).isEqualTo(bytes);
      assertThat(memory.bytes().capacity()).isEqualTo(bytes);
      assertThat(memory.bytes().limit()).isEqualTo(bytes);
      assertThat(memory.bytes().position()).isZero();
      assertThat(memory.bytes().isDirect()).isTrue();
      assertThat(memory.bytes().alignmentOffset(0, 64)).as("address mod 64").isZero();
      assertThat(memory.floats().capacity()).isEqualTo(bytes / Float.BYTES);
      assertThat(memory.longs().capacity()).isEqualTo(bytes / Long.BYTES);
    }
  }

  @Test
  void shouldUseNativeByteOrderInEveryView() {
    assertThat(block.bytes().order()).isEqualTo(ByteOrder.nativeOrder());
    assertThat(block.floats().order()).isEqualTo(ByteOrder.nativeOrder());
    assertThat(block.ints().order()).isEqualTo(ByteOrder.nativeOrder());
    assertThat(block.longs().order()).isEqualTo(ByteOrder.nativeOrder());
    assertThat(block.doubles().order()).isEqualTo(ByteOrder.nativeOrder());
  }

  @Test
  void shouldShareOneMemoryBetweenTheTypedViews() {
    block.floats().put(3, 1.75f);
    assertThat(block.bytes().getFloat(12)).isEqualTo(1.75f);

    block.ints().put(5, -9);
    assertThat(block.bytes().getInt(20)).isEqualTo(-9);

    block.longs().put(4, Long.MIN_VALUE + 1);
    assertThat(block.bytes().getLong(32)).isEqualTo(Long.MIN_VALUE + 1);

    block.doubles().put(6, Math.E);
    assertThat(block.bytes().getDouble(48)).isEqualTo(Math.E);

    block.bytes().putFloat(64, -0.5f);
    assertThat(block.floats().get(16)).isEqualTo(-0.5f);
  }

  @Test
  void shouldZeroExactlyTheRangeAsked() {
    for (int i = 0; i < block.size(); i++) {
      block.bytes().put(i, (byte) 0xFF);
    }
    block.zero(3, 50); // an unaligned start, whole longs and a tail

    for (int i = 0; i < block.size(); i++) {
      byte expected = i >= 3 && i < 53 ? 0 : (byte) 0xFF;
      assertThat(block.bytes().get(i)).as("byte %d", i).isEqualTo(expected);
    }
    block.zero(0, block.size());
    assertThat(block.longs().get(24)).isZero();
  }

  @Test
  void shouldFreeABlockNeverViewedAtOnceOnClose() {
    DirectAllocator allocator = new DirectAllocator("counted", 1 << 20);
    HostMemory memory = allocator.allocate(4096);
    assertThat(allocator.allocatedBytes()).isEqualTo(4096);
    memory.close();
    assertThat(allocator.allocatedBytes()).as("freed at once").isZero();
    assertThat(allocator.openBytes()).isZero();
    allocator.close();
  }

  @Test
  void shouldKeepAViewedBlockUntilItsLastViewIsUnreachable() throws InterruptedException {
    DirectAllocator allocator = new DirectAllocator("counted", 1 << 20);
    HostMemory memory = allocator.allocate(4096);
    memory.bytes().putLong(8, 42L);
    java.nio.ByteBuffer view = memory.view();
    memory.close();
    assertThat(allocator.openBytes()).as("closed by its owner").isZero();
    assertThat(allocator.allocatedBytes()).as("not freed under a view").isEqualTo(4096);
    assertThat(view.getLong(8)).as("the view still reads the memory").isEqualTo(42L);
    allocator.close();

    view = null;
    memory = null;
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (allocator.allocatedBytes() > 0 && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(10);
    }
    assertThat(allocator.allocatedBytes()).as("freed once unreachable").isZero();
  }

  @Test
  void shouldGiveViewsWithTheirOwnPositionLimitAndOrder() {
    java.nio.ByteBuffer view = block.view();
    view.order(ByteOrder.BIG_ENDIAN).position(10).limit(20);
    assertThat(block.bytes().order()).isEqualTo(ByteOrder.nativeOrder());
    assertThat(block.bytes().position()).isZero();
    assertThat(block.bytes().limit()).isEqualTo(200);
    assertThat(block.view().order()).isEqualTo(ByteOrder.nativeOrder());
    assertThat(block.readOnlyView().isReadOnly()).isTrue();
  }

  @Test
  void shouldRefuseToAllocatePastItsLimitNamingTheFigures() {
    DirectAllocator allocator = new DirectAllocator("small", 1000);
    HostMemory first = allocator.allocate(600);
    assertThatThrownBy(() -> allocator.allocate(600))
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessageContaining(
            "host allocator 'small': 600 bytes requested with 600 of its limit "
                + "of 1000 in use");
    first.close();
    allocator.close();
  }

  @Test
  void shouldFailToCloseWithBlocksStillOpen() {
    DirectAllocator allocator = new DirectAllocator("leaky", 1000);
    HostMemory open = allocator.allocate(100);
    assertThatThrownBy(allocator::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "host allocator 'leaky': 100 bytes still open on close (expected: every "
                + "block closed first)");
    open.close();
  }

  @Test
  void shouldTellTheNativeAddress() {
    assertThat(block.address()).isNotZero();
    assertThat(block.address() % 64).as("aligned").isZero();
  }

  @Test
  void shouldCloseTwiceSafely() {
    HostMemory memory = DirectAllocator.INSTANCE.allocate(128);
    assertThat(memory.isClosed()).isFalse();
    memory.close();
    memory.close();
    assertThat(memory.isClosed()).isTrue();
  }

  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(ints = {0, -1, Integer.MAX_VALUE})
  void shouldRejectASizeOutOfRange(int bytes) {
    assertThatThrownBy(() -> DirectAllocator.INSTANCE.allocate(bytes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bytes: " + bytes + " (expected: 0 < bytes <= 2147483583)");
  }
}
