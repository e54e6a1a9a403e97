package dev.stoker.loader.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.memory.HostAllocator;
import dev.stoker.loader.memory.HostMemory;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pinned allocator on a fake runtime: accounting, failures, and when memory is freed. */
class PinnedAllocatorTest {
  private FakeCudaRuntime runtime;
  private CudaDevice device;
  private HostAllocator allocator;

  @BeforeEach
  void open() {
    runtime = new FakeCudaRuntime(2);
    device = CudaDevice.using(runtime, 1);
    allocator = device.hostAllocator("pinned-test", 1 << 20, true);
  }

  @AfterEach
  void close() {
    allocator.close();
    awaitFreed();
    assertThat(allocator.allocatedBytes()).as("allocated after close").isZero();
    assertThat(device.pinnedBytes()).as("pinned bytes of the device after close").isZero();
    assertThat(runtime.pinnedBytes()).as("page-locked memory still allocated").isZero();
  }

  @Test
  void shouldAllocateAlignedPageLockedBlocksAndCountThem() {
    assertThat(allocator.pinned()).isTrue();
    assertThat(allocator.name()).isEqualTo("pinned-test");
    assertThat(allocator.limit()).isEqualTo(1 << 20);
    HostMemory a = allocator.allocate(1000);
    HostMemory b = allocator.allocate(4096);
    assertThat(a.size()).isEqualTo(1000);
    assertThat(a.address() % 64).isZero();
    assertThat(b.address() % 64).isZero();
    assertThat(allocator.allocatedBytes()).isEqualTo(5096);
    assertThat(device.pinnedBytes()).isEqualTo(5096);
    a.bytes().putLong(992, 42L);
    assertThat(a.bytes().getLong(992)).isEqualTo(42L);
    a.close();
    assertThat(allocator.allocatedBytes()).as("never viewed: freed at once").isEqualTo(4096);
    assertThat(runtime.pinnedBytes()).isEqualTo(4096);
    b.close();
    assertThat(allocator.allocatedBytes()).isZero();
  }

  @Test
  void shouldBindTheAllocatingThreadToTheDevice() {
    HostMemory block = allocator.allocate(64);
    block.close();
    assertThat(runtime.log())
        .contains(
            "cudaHostAlloc " + Thread.currentThread().getName() + " cuda:1",
            "cudaFreeHost " + Thread.currentThread().getName() + " cuda:1");
  }

  @Test
  void shouldFreeAViewedBlockOnlyOnceItsLastViewIsUnreachable() {
    HostMemory block = allocator.allocate(256);
    ByteBuffer view = block.view();
    view.putInt(0, 7);
    block.close();
    assertThat(allocator.allocatedBytes()).as("a view is still reachable").isEqualTo(256);
    assertThat(runtime.pinnedBytes()).isEqualTo(256);
    assertThat(view.getInt(0)).as("the kept view still reads live memory").isEqualTo(7);
    view = null;
    block = null;
    awaitFreed();
    assertThat(allocator.allocatedBytes()).isZero();
    assertThat(runtime.pinnedBytes()).isZero();
  }

  @Test
  void shouldRefuseMoreThanItsLimitNamingTheFigures() {
    HostMemory block = allocator.allocate(1 << 19);
    assertThatThrownBy(() -> allocator.allocate((1 << 19) + 1))
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage(
            "host allocator 'pinned-test': 524289 bytes requested with 524288 of its "
                + "limit of 1048576 in use; raise the limit (maxHostBytes) or use smaller batches");
    block.close();
  }

  @Test
  void shouldTurnARefusedHostAllocIntoAnOutOfMemoryErrorWithTheWayOut() {
    runtime.fail("cudaHostAlloc", CudaRuntime.MEMORY_ALLOCATION, 0, 1);
    assertThatThrownBy(() -> allocator.allocate(4096))
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage(
            "cudaHostAlloc returned 2 (cudaErrorMemoryAllocation) for 4096 bytes of "
                + "page-locked memory on cuda:1, host allocator 'pinned-test': the machine refused "
                + "page-locked memory; lower maxHostBytes, or set pinMemory=false");
    assertThat(allocator.allocatedBytes()).as("nothing stays reserved").isZero();
    allocator.allocate(4096).close();
  }

  @Test
  void shouldReportAnyOtherErrorOfTheRuntimeWithCallCodeAndName() {
    runtime.fail("cudaHostAlloc", FakeCudaRuntime.ILLEGAL_ADDRESS, 0, 1);
    assertThatThrownBy(() -> allocator.allocate(64))
        .isInstanceOfSatisfying(
            CudaCallException.class,
            e -> {
              assertThat(e.call()).isEqualTo("cudaHostAlloc");
              assertThat(e.code()).isEqualTo(700);
              assertThat(e.codeName()).isEqualTo("cudaErrorIllegalAddress");
            })
        .hasMessage(
            "cudaHostAlloc returned 700 (cudaErrorIllegalAddress) for 64 bytes of "
                + "page-locked memory on cuda:1, host allocator 'pinned-test'");
    assertThat(allocator.allocatedBytes()).isZero();
  }

  @Test
  void shouldRefuseToCloseWithBlocksStillOpenNamingTheBytes() {
    HostAllocator other = device.hostAllocator("leaky", 1 << 20, true);
    HostMemory block = other.allocate(512);
    assertThatThrownBy(other::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "host allocator 'leaky': 512 bytes still open on close (expected: every "
                + "block closed first)");
    block.close();
    other.close();
    assertThatThrownBy(() -> other.allocate(64))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("host allocator 'leaky' is closed");
  }

  @Test
  void shouldGiveDirectMemoryWithoutPinMemory() {
    HostAllocator direct = device.hostAllocator("unpinned", 1 << 20, false);
    assertThat(direct.pinned()).isFalse();
    direct.allocate(64).close();
    direct.close();
    assertThat(runtime.log()).noneMatch(call -> call.startsWith("cudaHostAlloc"));
  }

  private void awaitFreed() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (allocator.allocatedBytes() > 0 && System.nanoTime() < deadline) {
      System.gc();
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
